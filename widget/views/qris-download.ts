// The QRIS code as a PNG file, for the view's download button: its own small chunk, loaded when the shopper presses
// the button (most pay by scanning, and never need it). What it draws comes in the call.
import { phone } from './external.js';
/** A PNG of the code with its quiet zone, drawn on a canvas from the same path: no markup parsing, no eval. */
function qrPng(d: string, size: number, quiet: number, scale = 10): Promise<Blob | null> {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = (size + 2 * quiet) * scale;
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(scale, 0, 0, scale, quiet * scale, quiet * scale);
  ctx.fillStyle = '#000';
  ctx.fill(new Path2D(d));
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}

/**
 * Saves the code (its SVG path `d`, `size` modules, `quiet` modules of margin) as `qris-<id>.png`. On a phone the
 * system's share sheet offers it first ("Save Image" puts it in the photos, where a banking app's QRIS scanner can
 * open it); elsewhere, or where files cannot be shared, it is downloaded.
 */
export async function download(id: string, d: string, size: number, quiet: number) {
  const blob = await qrPng(d, size, quiet);
  if (!blob) return;
  const file = new File([blob], `qris-${id}.png`, { type: 'image/png' });
  if (phone() && navigator.canShare?.({ files: [file] })) {
    try {
      return await navigator.share({ files: [file] });
    } catch (err) {
      if ((err as Error).name === 'AbortError') return; // the shopper closed the sheet
    }
  }
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `qris-${id}.png`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}
