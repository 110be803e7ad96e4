// QR codes for QRIS: lean-qr's small encoder, drawn as one SVG path (one sub-path per run of dark modules). Part of
// the QRIS view's chunk; the PNG download is views/qris-download.ts.
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
