// Reconstitution markers that do not pile up: events closer than a minimum on-screen gap are
// drawn as one marker with a count.

export interface ChartEvent {
  t: string;
  x: number;
  label: string;
}

export interface EventGroup {
  /** where the marker is drawn: the group's first event */
  x: number;
  events: ChartEvent[];
}

/**
 * Groups events (any order) so that no two markers are closer than `minGapPx` on a plot
 * `plotWidthPx` wide showing [first, last]. Each group starts at its earliest event and takes
 * every later event within the gap.
 */
export function groupEvents(
  events: readonly ChartEvent[],
  first: number,
  last: number,
  plotWidthPx: number,
  minGapPx = 28,
): EventGroup[] {
  const sorted = [...events].filter((e) => e.x >= first && e.x <= last).sort((a, b) => a.x - b.x);
  const span = last - first;
  const gap = span > 0 && plotWidthPx > 0 ? (span * minGapPx) / plotWidthPx : 0;
  const groups: EventGroup[] = [];
  for (const e of sorted) {
    const g = groups[groups.length - 1];
    if (g && e.x - g.x < gap) g.events.push(e);
    else groups.push({ x: e.x, events: [e] });
  }
  return groups;
}
