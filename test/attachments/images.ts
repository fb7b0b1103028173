import { crc32, deflateSync } from "node:zlib";

/** Tiny valid images written byte by byte, with the metadata uploads must lose. */

export interface PngOptions {
  width: number;
  height: number;
  /** Metadata chunks (tEXt with a location, eXIf, iTXt, zTXt, tIME): dropped on upload. */
  metadata?: boolean;
  /** deflate level of the image data (0: stored, as large as the pixels). */
  level?: number;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const GPS_TEXT = "GPSLatitude=48.8583N;GPSLongitude=2.2945E";

/** An RGB PNG; with `metadata`, text and EXIF chunks before and after the image data. */
export function png({ width, height, metadata = false, level = 6 }: PngOptions): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width * 3; x++) raw[y * row + 1 + x] = (x * 7 + y * 13) & 0xff;
  const meta = metadata
    ? [
        chunk("tEXt", Buffer.from(`Comment\0${GPS_TEXT}`, "latin1")),
        chunk("eXIf", Buffer.concat([Buffer.from("MM\0*\0\0\0\x08", "latin1"), Buffer.from(GPS_TEXT)])),
        chunk("iTXt", Buffer.from(`Author\0\0\0\0\0secret author ${GPS_TEXT}`, "latin1")),
      ]
    : [];
  const after = metadata
    ? [
        chunk("tIME", Buffer.from([0x07, 0xea, 1, 2, 3, 4, 5])),
        chunk("zTXt", Buffer.concat([Buffer.from("Note\0\0"), deflateSync(GPS_TEXT)])),
      ]
    : [];
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", ihdr),
    ...meta,
    chunk("IDAT", deflateSync(raw, { level })),
    ...after,
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function segment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/**
 * A baseline grey JPEG: one component, a Huffman table of one code each (DC difference 0, AC
 * end-of-block), so every 8×8 block is the two bits `00`. With `metadata`, an EXIF APP1 with a
 * GPS location, an XMP APP1, an APP13 and a COM segment, which uploads drop.
 */
export function jpeg({
  width,
  height,
  metadata = false,
}: {
  width: number;
  height: number;
  metadata?: boolean;
}): Buffer {
  const jfif = segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  const dqt = segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)]));
  const sof = Buffer.alloc(9);
  sof[0] = 8;
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  sof[5] = 1; // components
  sof[6] = 1; // id
  sof[7] = 0x11; // sampling
  sof[8] = 0; // table
  const huffman = (cls: number) =>
    Buffer.concat([Buffer.from([cls << 4]), Buffer.from([1, ...Array(15).fill(0)]), Buffer.from([0])]);
  const dht = segment(0xc4, Buffer.concat([huffman(0), huffman(1)]));
  const sos = segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0]));
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = blocks * 2;
  const data = Buffer.alloc(Math.ceil(bits / 8), 0);
  const pad = data.length * 8 - bits;
  if (pad > 0) data[data.length - 1] = (1 << pad) - 1;
  const meta = metadata
    ? [
        segment(0xe1, Buffer.concat([Buffer.from("Exif\0\0MM\0*\0\0\0\x08", "latin1"), Buffer.from(GPS_TEXT)])),
        segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>${GPS_TEXT}</x:xmpmeta>`)),
        segment(0xed, Buffer.from(`Photoshop 3.0\0${GPS_TEXT}`)),
        segment(0xfe, Buffer.from(`secret comment ${GPS_TEXT}`)),
      ]
    : [];
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jfif,
    ...meta,
    dqt,
    segment(0xc0, sof),
    dht,
    sos,
    data,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A multipart/form-data body with one file part. */
export function multipart(
  file: Buffer,
  {
    name = "file",
    filename = "photo.png",
    type = "image/png",
  }: { name?: string; filename?: string; type?: string } = {},
) {
  const boundary = `----sta${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}
