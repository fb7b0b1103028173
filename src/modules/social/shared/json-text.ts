/*
 * Finding values in a serializer's JSON text without parsing it (docs/decisions/0198, 0209): the
 * text is what fast-json-stringify writes, with no whitespace between tokens. Positions are char
 * indexes in the string, except `byteOffsets`' and `lastValueRange`'s, which are UTF-8 bytes.
 */

/** A char (or byte) range [start, end). */
export type TextRange = [number, number];

/** The index after the string that opens (its `"`) at `start`; past the text when it does not close. */
function stringEnd(json: string, start: number): number {
  for (let i = start + 1; ; ) {
    const quote = json.indexOf('"', i);
    if (quote < 0) return json.length + 1;
    let backslashes = 0;
    while (json.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** The index after the `}` or `]` closing the object or array that opens at `start`; -1 when it does not close. */
export function objectEnd(json: string, start: number): number {
  let depth = 0;
  for (let i = start; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 34) i = stringEnd(json, i) - 1;
    else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
  }
  return -1;
}

/** The index after the value that starts at `start`; -1 when it does not end. */
function valueEnd(json: string, start: number): number {
  const c = json.charCodeAt(start);
  if (c === 123 || c === 91) return objectEnd(json, start);
  if (c === 34) {
    const end = stringEnd(json, start);
    return end > json.length ? -1 : end;
  }
  let i = start;
  while (i < json.length) {
    const d = json.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93) break;
    i++;
  }
  return i > start ? i : -1;
}

/**
 * The index after a key's value that starts at `start`. A shared document's own text has its
 * profiles cut out (docs/decisions/0192): `"owner":` is then followed at once by the next `,` or
 * `}`, an empty value.
 */
function memberEnd(json: string, start: number): number {
  const c = json.charCodeAt(start);
  return c === 44 || c === 125 ? start : valueEnd(json, start);
}

/**
 * Where the value under `path` starts (keys of nested objects, from the object that opens at
 * `from`), stepping over the siblings before it only; -1 when a key is missing or the text is not
 * an object there.
 */
function valueStart(json: string, path: readonly string[], from = 0): number {
  let at = from;
  for (const key of path) {
    if (json.charCodeAt(at) !== 123) return -1;
    let i = at + 1;
    at = -1;
    while (i < json.length && json.charCodeAt(i) === 34) {
      const keyEnd = stringEnd(json, i);
      if (json.charCodeAt(keyEnd) !== 58) return -1;
      if (json.slice(i + 1, keyEnd - 1) === key) {
        at = keyEnd + 1;
        break;
      }
      const end = memberEnd(json, keyEnd + 1);
      if (end < 0 || json.charCodeAt(end) !== 44) return -1;
      i = end + 1;
    }
    if (at < 0) return -1;
  }
  return at;
}

/**
 * The value under `path` in the object that opens at `from` (see `valueStart`), parsed alone;
 * undefined when there is none. Throws, as JSON.parse does, on a value that is not JSON.
 */
export function valueAt(json: string, path: readonly string[], from = 0): unknown {
  const start = valueStart(json, path, from);
  const end = start < 0 ? -1 : valueEnd(json, start);
  return end < 0 ? undefined : JSON.parse(json.slice(start, end));
}

/**
 * The array under `path`: the char ranges of its items and the index after its `]`, found in one
 * pass; null when there is no array there.
 */
export function listAt(json: string, path: readonly string[]): { items: TextRange[]; end: number } | null {
  const start = valueStart(json, path);
  if (start < 0 || json.charCodeAt(start) !== 91) return null;
  const items: TextRange[] = [];
  let i = start + 1;
  if (json.charCodeAt(i) === 93) return { items, end: i + 1 };
  for (;;) {
    const itemEnd = valueEnd(json, i);
    if (itemEnd < 0) return null;
    items.push([i, itemEnd]);
    const c = json.charCodeAt(itemEnd);
    if (c === 93) return { items, end: itemEnd + 1 };
    if (c !== 44) return null;
    i = itemEnd + 1;
  }
}

/** Byte offsets in `json`'s UTF-8 of the ascending char indexes `at`. */
export function byteOffsets(json: string, at: readonly number[]): number[] {
  if (Buffer.byteLength(json) === json.length) return [...at];
  let chars = 0;
  let bytes = 0;
  return at.map((i) => {
    bytes += Buffer.byteLength(json.slice(chars, i));
    chars = i;
    return bytes;
  });
}

/**
 * The byte range in `json`'s UTF-8 of the object value of the last `"key":`, when `next` follows
 * it at once (checks that the key is where the caller expects it); null otherwise.
 */
export function lastValueRange(json: string, key: string, next: string): TextRange | null {
  const name = `"${key}":`;
  const found = json.lastIndexOf(name);
  if (found < 0) return null;
  const at = found + name.length;
  if (json.charCodeAt(at) !== 123) return null;
  const end = objectEnd(json, at);
  if (end < 0 || !json.startsWith(next, end)) return null;
  const [from, to] = byteOffsets(json, [at, end]);
  return [from!, to!];
}
