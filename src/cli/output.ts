/** CLI output: human text by default, one JSON document on stdout with --json. */
export interface Output {
  json: boolean;
  result(value: unknown, human: () => string): void;
  progress(message: string): void;
}

export function makeOutput(json: boolean): Output {
  return {
    json,
    result(value, human) {
      process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
    },
    progress(message) {
      // Progress goes to stderr so that stdout stays machine-readable.
      process.stderr.write(`… ${message}\n`);
    },
  };
}
