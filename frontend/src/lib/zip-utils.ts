/**
 * The chart pack's zip, written by fflate as the files arrive: text (SVG, CSV) deflated,
 * PNGs stored as they are (they are compressed already). Entries are streamed into the
 * archive while the next chart is drawn; finish() hands the whole archive as a Blob.
 *
 * Text is deflated on the page's thread: a few hundred KB of SVG take milliseconds there,
 * while fflate's async deflate starts a worker per file (two dozen for a pack), which cost
 * seconds of the pack's time on a busy machine.
 */

import { Zip, ZipDeflate, ZipPassThrough } from "fflate";

export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

/** Already-compressed formats: stored, not deflated again. */
const STORED = /\.(png|jpe?g|gif|webp|zip|gz)$/i;

export class ZipStream {
  private readonly chunks: Uint8Array[] = [];
  private readonly zip: Zip;
  private readonly names = new Set<string>();
  private error: Error | null = null;
  private done: Promise<void>;
  private resolveDone!: () => void;

  constructor() {
    this.done = new Promise<void>((resolve) => {
      this.resolveDone = resolve;
    });
    this.zip = new Zip((err, chunk, final) => {
      if (err) {
        this.error = err;
        this.resolveDone();
        return;
      }
      this.chunks.push(chunk);
      if (final) this.resolveDone();
    });
  }

  /** Adds one file; a name given twice is refused (a pack never holds two files of a name). */
  add(name: string, data: Uint8Array, mtime = new Date()): void {
    if (this.names.has(name)) throw new Error(`the chart pack already has a file named ${name}`);
    this.names.add(name);
    const file = STORED.test(name) ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    file.mtime = mtime;
    this.zip.add(file);
    file.push(data, true);
  }

  /** Ends the archive: its central directory written, every chunk in one Blob. */
  async finish(): Promise<Blob> {
    this.zip.end();
    await this.done;
    if (this.error) throw this.error;
    return new Blob(this.chunks as BlobPart[], { type: "application/zip" });
  }
}

/** The zip of `entries` in one go (tests, small archives). */
export async function zipEntries(entries: ZipEntry[], mtime = new Date()): Promise<Blob> {
  const zip = new ZipStream();
  for (const e of entries) zip.add(e.name, e.data, mtime);
  return zip.finish();
}
