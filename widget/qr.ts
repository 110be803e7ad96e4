// QR codes for QRIS: lean-qr's small encoder, drawn as one SVG path (one sub-path per run of dark modules).
import { correction, generate } from 'lean-qr/nano';

/** Modules of light margin around the code (the QR standard asks for 4). */
export const QUIET = 4;

/** The code as an SVG path in module units, and its size in modules (without the quiet zone). */
export function qrPath(data: string): { d: string; size: number } {
  const code = generate(data, { minCorrectionLevel: correction.M });
  let d = '';
  for (let y = 0; y < code.size; y++) {
    for (let x = 0; x < code.size; x++) {
      if (!code.get(x, y)) continue;
      const start = x;
      while (code.get(x + 1, y)) x++;
      d += `M${start} ${y}h${x - start + 1}v1H${start}z`;
    }
  }
  return { d, size: code.size };
}

/** A PNG of the code (with its quiet zone), drawn on a canvas from the same path: no markup parsing, no eval. */
export function qrPng(d: string, size: number, scale = 10): Promise<Blob | null> {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = (size + 2 * QUIET) * scale;
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(scale, 0, 0, scale, QUIET * scale, QUIET * scale);
  ctx.fillStyle = '#000';
  ctx.fill(new Path2D(d));
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}
