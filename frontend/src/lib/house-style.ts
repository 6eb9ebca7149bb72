/**
 * House style of the comparison charts and their exports: one colour per drive, the same in
 * every chart of a page and in every exported file. Colours follow the drive's position in
 * the chosen list; the drive under review always gets the accent colour.
 */

import { DRIVE_COLORS } from "../components/chart-frame/chart-theme";

export const REVIEW_COLOR = "#d9480f";
/** Colours of the other drives, in assignment order (none close to the accent). */
const OTHERS = DRIVE_COLORS.filter((c) => c !== "#ea580c" && c !== "#dc2626");

export interface DriveStyle {
  color: string;
  underReview: boolean;
}

/** Drive id -> colour, by position in `driveIds`; the drive under review gets the accent. */
export function driveStyles(
  driveIds: number[],
  underReview: number | null,
): Map<number, DriveStyle> {
  const styles = new Map<number, DriveStyle>();
  let next = 0;
  for (const id of driveIds) {
    if (styles.has(id)) continue;
    if (id === underReview) {
      styles.set(id, { color: REVIEW_COLOR, underReview: true });
    } else {
      styles.set(id, { color: OTHERS[next % OTHERS.length] ?? "#555", underReview: false });
      next += 1;
    }
  }
  return styles;
}

export const colorOf = (styles: Map<number, DriveStyle>, id: number) =>
  styles.get(id)?.color ?? "#6b7785";
