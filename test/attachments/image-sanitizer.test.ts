import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ImageRejected, ImageSanitizer, sanitizeImage } from "../../src/modules/media/image-sanitizer.js";
import { GPS_TEXT, jpeg, png } from "./images.js";

/** Feeds `bytes` in pieces cut at `cuts` (positions), as a network would. */
function inPieces(bytes: Buffer, cuts: number[]) {
  const s = new ImageSanitizer();
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    out.push(...s.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(...s.push(bytes.subarray(from)));
  return { ...s.end(), bytes: Buffer.concat(out) };
}

const size = fc.integer({ min: 1, max: 40 });
const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe("image sanitizer", () => {
  it("PNG: any size, any split: the type and size from IHDR, metadata chunks gone, the rest byte for byte", () => {
    fc.assert(
      fc.property(size, size, fc.boolean(), cuts, (width, height, metadata, at) => {
        const out = inPieces(png({ width, height, metadata }), at);
        expect(out).toMatchObject({ mime: "image/png", width, height });
        expect(out.bytes.equals(png({ width, height }))).toBe(true);
        expect(out.bytes.includes(GPS_TEXT)).toBe(false);
      }),
    );
  });

  it("JPEG: any size, any split: the size from SOF0, APP1..APP15 and COM gone, the rest byte for byte", () => {
    fc.assert(
      fc.property(size, size, fc.boolean(), cuts, (width, height, metadata, at) => {
        const out = inPieces(jpeg({ width, height, metadata }), at);
        expect(out).toMatchObject({ mime: "image/jpeg", width, height });
        expect(out.bytes.equals(jpeg({ width, height }))).toBe(true);
        expect(out.bytes.includes("Exif")).toBe(false);
      }),
    );
  });

  it("every proper prefix of an image is refused (truncated), and so is any byte after its end", () => {
    fc.assert(
      fc.property(size, size, fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), (w, h, isPng, f) => {
        const image = isPng
          ? png({ width: w, height: h, metadata: true })
          : jpeg({ width: w, height: h, metadata: true });
        const prefix = image.subarray(0, Math.floor(f * (image.length - 1)));
        expect(() => sanitizeImage(prefix)).toThrow(ImageRejected);
        expect(() => sanitizeImage(Buffer.concat([image, Buffer.from("<script>")]))).toThrow(ImageRejected);
      }),
    );
  });

  it("refuses what is not a JPEG or PNG, and a corrupt chunk", () => {
    for (const bytes of [
      Buffer.alloc(0),
      Buffer.from("#!/bin/sh\necho hi\n"),
      Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"),
      Buffer.from([0xff]),
    ]) {
      expect(() => sanitizeImage(bytes), bytes.toString("hex")).toThrow(ImageRejected);
    }
    const corrupt = png({ width: 2, height: 2 });
    const at = corrupt.length - 20; // inside IDAT: its CRC no longer matches
    corrupt[at] = corrupt[at]! ^ 0xff;
    expect(() => sanitizeImage(corrupt)).toThrow(/corrupt/);
  });
});
