import { crc32 } from "node:zlib";

/**
 * The image check and metadata stripper of uploads (docs/decisions/0122), pure and streaming:
 * bytes go in as they arrive, the stored bytes come out, and nothing is held but the part of a
 * header or a JPEG segment being read (at most 64 KiB). The type is decided by the bytes alone.
 *
 * - PNG: the signature, IHDR first (its width and height), CRCs checked, IDAT present, IEND last;
 *   tEXt, zTXt, iTXt, eXIf and tIME chunks are dropped.
 * - JPEG: SOI, segments, a frame (SOFn: its width and height) before the first scan, EOI last;
 *   APP1..APP15 (EXIF and its GPS location, XMP, ICC, Photoshop IPTC…) and COM segments are dropped.
 *
 * Anything else, a truncated image, or bytes after the image's end (a polyglot) is refused.
 */

export type ImageMime = "image/jpeg" | "image/png";

export interface ImageInfo {
  mime: ImageMime;
  width: number;
  height: number;
}

/** The upload is not a JPEG or PNG image this server accepts; `reason` finishes "The file …". */
export class ImageRejected extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "ImageRejected";
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Ancillary PNG chunks that carry metadata: dropped. */
export const PNG_DROPPED = new Set(["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]);
const MAX_DIMENSION = 65_535;

/** JPEG markers with no length: RSTn, TEM. */
const standalone = (m: number) => (m >= 0xd0 && m <= 0xd7) || m === 0x01;
/** SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC). */
const isFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
/** APP1..APP15 and COM. */
export const jpegDropped = (m: number) => (m >= 0xe1 && m <= 0xef) || m === 0xfe;

type State =
  | { at: "start" }
  | { at: "png-chunk" }
  | { at: "png-copy"; left: number; crc: number; expectCrc: boolean; type: string }
  | { at: "png-skip"; left: number }
  | { at: "jpeg-marker" }
  | { at: "jpeg-copy"; left: number }
  | { at: "jpeg-skip"; left: number }
  | { at: "jpeg-scan" }
  | { at: "done" };

export class ImageSanitizer {
  private state: State = { at: "start" };
  private pending: Buffer = Buffer.alloc(0);
  private out: Buffer[] = [];
  private mime: ImageMime | undefined;
  private width = 0;
  private height = 0;
  private sawData = false;
  private chunks = 0;

  /** Takes the next bytes; returns the bytes to store so far. Throws ImageRejected. */
  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.run();
    const out = this.out;
    this.out = [];
    return out;
  }

  /** The input is over: the image's type and size, or ImageRejected when it is incomplete. */
  end(): ImageInfo {
    if (this.state.at === "start" && this.pending.length === 0) throw new ImageRejected("is empty");
    if (this.state.at === "start") throw new ImageRejected("is not a JPEG or PNG image");
    if (this.state.at !== "done" || !this.mime) throw new ImageRejected("is truncated: the image ends early");
    return { mime: this.mime, width: this.width, height: this.height };
  }

  private emit(bytes: Buffer): void {
    if (bytes.length > 0) this.out.push(bytes);
  }

  private take(n: number): Buffer {
    const head = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return head;
  }

  private run(): void {
    for (;;) {
      const before = this.pending.length;
      const state = this.state.at;
      this.step();
      if (this.pending.length === before && this.state.at === state) return;
    }
  }

  private step(): void {
    const s = this.state;
    const p = this.pending;
    switch (s.at) {
      case "start": {
        if (p.length >= 2 && p[0] === 0xff && p[1] === 0xd8) {
          this.mime = "image/jpeg";
          this.emit(this.take(2));
          this.state = { at: "jpeg-marker" };
          return;
        }
        const n = Math.min(p.length, PNG_SIGNATURE.length);
        if (n === 0 || !p.subarray(0, n).equals(PNG_SIGNATURE.subarray(0, n))) {
          if (p.length >= 2 || (p.length === 1 && p[0] !== 0xff)) {
            throw new ImageRejected("is not a JPEG or PNG image");
          }
          return;
        }
        if (n < PNG_SIGNATURE.length) return;
        this.mime = "image/png";
        this.emit(this.take(8));
        this.state = { at: "png-chunk" };
        return;
      }
      case "png-chunk": {
        if (p.length < 8) return;
        const length = p.readUInt32BE(0);
        const type = p.toString("latin1", 4, 8);
        if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(type)) throw new ImageRejected("is not a valid PNG image");
        const first = this.chunks === 0;
        if (first && (type !== "IHDR" || length !== 13)) {
          throw new ImageRejected("is not a valid PNG image: IHDR must come first");
        }
        if (type === "IHDR") {
          if (!first) throw new ImageRejected("is not a valid PNG image: two IHDR chunks");
          if (p.length < 8 + 13 + 4) return;
          this.width = p.readUInt32BE(8);
          this.height = p.readUInt32BE(12);
          if (!this.validSize()) throw new ImageRejected("is not a valid PNG image: bad width or height");
        }
        this.chunks += 1;
        if (PNG_DROPPED.has(type)) {
          this.take(8);
          this.state = { at: "png-skip", left: length + 4 };
          return;
        }
        if (type === "IDAT") this.sawData = true;
        if (type === "IEND" && !this.sawData) throw new ImageRejected("is not a valid PNG image: no image data");
        const head = this.take(8);
        this.emit(head);
        this.state = { at: "png-copy", left: length, crc: crc32(head.subarray(4, 8)), expectCrc: true, type };
        return;
      }
      case "png-copy": {
        if (s.left > 0) {
          if (p.length === 0) return;
          const part = this.take(Math.min(s.left, p.length));
          this.emit(part);
          this.state = { ...s, left: s.left - part.length, crc: crc32(part, s.crc) };
          return;
        }
        if (p.length < 4) return;
        const crc = this.take(4);
        if (crc.readUInt32BE(0) !== s.crc >>> 0)
          throw new ImageRejected("is not a valid PNG image: a chunk is corrupt");
        this.emit(crc);
        this.state = s.type === "IEND" ? { at: "done" } : { at: "png-chunk" };
        return;
      }
      case "png-skip":
      case "jpeg-skip": {
        if (p.length === 0) return;
        const n = Math.min(s.left, p.length);
        this.take(n);
        const left = s.left - n;
        this.state = left > 0 ? { ...s, left } : { at: s.at === "png-skip" ? "png-chunk" : "jpeg-marker" };
        return;
      }
      case "jpeg-copy": {
        if (p.length === 0) return;
        const part = this.take(Math.min(s.left, p.length));
        this.emit(part);
        const left = s.left - part.length;
        this.state = left > 0 ? { at: "jpeg-copy", left } : { at: "jpeg-marker" };
        return;
      }
      case "jpeg-marker": {
        if (p.length < 2) return;
        if (p[0] !== 0xff) throw new ImageRejected("is not a valid JPEG image: a segment is malformed");
        if (p[1] === 0xff) {
          this.take(1); // fill byte
          return;
        }
        const m = p[1]!;
        if (m === 0xd9) {
          if (!this.sawData || this.width === 0) throw new ImageRejected("is not a valid JPEG image: no image data");
          this.emit(this.take(2));
          this.state = { at: "done" };
          return;
        }
        if (m === 0x00 || m === 0xd8) throw new ImageRejected("is not a valid JPEG image: a segment is malformed");
        if (standalone(m)) {
          this.emit(this.take(2));
          return;
        }
        if (p.length < 4) return;
        const length = p.readUInt16BE(2);
        if (length < 2) throw new ImageRejected("is not a valid JPEG image: a segment is malformed");
        if (jpegDropped(m)) {
          this.take(4);
          this.state = { at: "jpeg-skip", left: length - 2 };
          return;
        }
        if (isFrame(m)) {
          if (this.width !== 0) throw new ImageRejected("is not a valid JPEG image: two frames");
          if (length < 8) throw new ImageRejected("is not a valid JPEG image: a frame header is short");
          if (p.length < 9) return;
          this.height = p.readUInt16BE(5);
          this.width = p.readUInt16BE(7);
          if (!this.validSize()) throw new ImageRejected("is not a valid JPEG image: bad width or height");
        }
        if (m === 0xda) {
          if (this.width === 0) throw new ImageRejected("is not a valid JPEG image: a scan before the frame");
          this.sawData = true;
          if (p.length < 2 + length) return;
          this.emit(this.take(2 + length));
          this.state = { at: "jpeg-scan" };
          return;
        }
        this.emit(this.take(4));
        this.state = length > 2 ? { at: "jpeg-copy", left: length - 2 } : { at: "jpeg-marker" };
        return;
      }
      case "jpeg-scan": {
        // Entropy-coded data: FF 00 and FF D0..D7 are data; any other FF xx starts a marker.
        let from = 0;
        for (;;) {
          const ff = p.indexOf(0xff, from);
          if (ff < 0) {
            this.emit(this.take(p.length));
            return;
          }
          if (ff + 1 >= p.length) {
            this.emit(this.take(ff));
            return;
          }
          const next = p[ff + 1]!;
          if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
            from = ff + 2;
            continue;
          }
          this.emit(this.take(ff));
          this.state = { at: "jpeg-marker" };
          return;
        }
      }
      case "done": {
        if (p.length > 0) throw new ImageRejected("has data after the end of the image");
        return;
      }
    }
  }

  private validSize(): boolean {
    return this.width > 0 && this.height > 0 && this.width <= MAX_DIMENSION && this.height <= MAX_DIMENSION;
  }
}

/** The whole of a file at once (tests, tools): its info and stored bytes. */
export function sanitizeImage(bytes: Buffer): ImageInfo & { bytes: Buffer } {
  const s = new ImageSanitizer();
  const out = s.push(bytes);
  const info = s.end();
  return { ...info, bytes: Buffer.concat(out) };
}
