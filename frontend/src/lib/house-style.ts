/**
 * House style of the comparison charts and their exports: one colour per drive, the same in
 * every chart, every comparison and every exported file. A drive's colour follows from its
 * id alone (not from its role or its place in the chosen list): the drive under review keeps
 * its own colour and is set apart by a thicker line, a dark outline and a bold label.
 */

import { DRIVE_COLORS } from "../components/chart-frame/chart-theme";

/** Kept for the places that still name the drive-under-review mark in words. */
export const REVIEW_WIDTH = 2.75;

export interface DriveStyle {
  color: string;
  underReview: boolean;
}

/** The colour of drive `id`: fixed by the id (DRIVE_COLORS[id mod n]). */
export function driveColor(id: number): string {
  const n = DRIVE_COLORS.length;
  return DRIVE_COLORS[((Math.trunc(id) % n) + n) % n] ?? "#555";
}

/**
 * Drive id -> colour and whether it is under review. Every drive gets its own colour
 * (driveColor); only when two drives of one comparison share it (ids n apart) does the one
 * with the higher id move on to the next free colour, so that no two lines look alike.
 */
export function driveStyles(
  driveIds: number[],
  underReview: number | null,
): Map<number, DriveStyle> {
  const styles = new Map<number, DriveStyle>();
  const taken = new Set<string>();
  const n = DRIVE_COLORS.length;
  for (const id of Array.from(new Set(driveIds)).sort((a, b) => a - b)) {
    let color = driveColor(id);
    for (let k = 1; taken.has(color) && k < n; k++) color = driveColor(id + k);
    taken.add(color);
    styles.set(id, { color, underReview: id === underReview });
  }
  // Insertion in the chosen order (legends list drives as they were chosen).
  const ordered = new Map<number, DriveStyle>();
  for (const id of driveIds) {
    const s = styles.get(id);
    if (s && !ordered.has(id)) ordered.set(id, s);
  }
  return ordered;
}

export const colorOf = (styles: Map<number, DriveStyle>, id: number) =>
  styles.get(id)?.color ?? "#6b7785";

/** The line width of a drive: thicker for the drive under review. */
export const widthOf = (styles: Map<number, DriveStyle>, id: number, base = 1.5) =>
  styles.get(id)?.underReview ? REVIEW_WIDTH : base;
