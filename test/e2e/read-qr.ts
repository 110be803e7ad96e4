// Reads a QR code off a screenshot, the way a phone's camera would: the tests decode what the shopper sees.
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** The text of the QR code in a PNG screenshot, or null when none can be read. */
export function readQr(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  // A white quiet zone around the picture, so a code cropped to its own edge still reads.
  const margin = 32;
  const width = image.width + 2 * margin;
  const height = image.height + 2 * margin;
  const pixels = new Uint8ClampedArray(width * height * 4).fill(255);
  for (let y = 0; y < image.height; y++) {
    const from = y * image.width * 4;
    pixels.set(image.data.subarray(from, from + image.width * 4), ((y + margin) * width + margin) * 4);
  }
  return jsQR(pixels, width, height)?.data ?? null;
}
