/**
 * The chart pack's PNG encoder, a worker of its own: a page's canvas (toBlob, and an
 * OffscreenCanvas's convertToBlob on the page's thread) encodes a PNG only in the page's idle
 * time, of which a pack being drawn leaves little, so there every PNG waited for the others.
 * Here the bitmap drawn on the page is copied 1:1 onto a canvas (opaque pixels: the same
 * pixels) and encoded at once by the same encoder.
 */

export interface PngJob {
  id: number;
  bitmap: ImageBitmap;
}

export type PngAnswer = { id: number; blob: Blob } | { id: number; error: string };

self.onmessage = async (event: MessageEvent<PngJob>) => {
  const { id, bitmap } = event.data;
  let answer: PngAnswer;
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("this browser gives a worker no 2D canvas to encode the PNG on");
    ctx.drawImage(bitmap, 0, 0);
    answer = { id, blob: await canvas.convertToBlob({ type: "image/png" }) };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  } finally {
    bitmap.close();
  }
  self.postMessage(answer);
};
