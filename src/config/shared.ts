/** What every area parser of src/config.ts shares: how a value is looked up, and URL redaction. */

export type Env = Record<string, string | undefined>;

/** A command-line flag if given, else the environment variable `name`; empty counts as unset. */
export type Pick = (flag: string | number | undefined, name: string) => string | undefined;

/** Never print a password that sits inside a connection URL. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, "//$1:***@");
}
