// Charts drawn on the server as inline SVG: no script, no inline style (colours come from
// portal.css classes), so the strict CSP holds. Each chart has a title and a text summary for
// screen readers; the numbers are also in the tables beside it.
import { html, type Html } from '../html.ts';

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** What the bar's tooltip and the screen reader say. */
  readonly text: string;
}

const WIDTH = 720;
const HEIGHT = 220;
const PAD_LEFT = 8;
const PAD_BOTTOM = 28;
const PAD_TOP = 12;

/** Vertical bars over time (one per day), scaled to the largest value or to `max`. */
export function columnChart(title: string, bars: readonly Bar[], options: { max?: number; alt?: boolean } = {}): Html {
  if (bars.length === 0) return html`<figure class="chart-figure"><figcaption>${title}</figcaption><p class="empty">Nothing in this period.</p></figure>`;
  const max = options.max ?? Math.max(...bars.map((b) => b.value), 1);
  const slot = (WIDTH - PAD_LEFT * 2) / bars.length;
  const barWidth = Math.max(1, Math.min(40, slot * 0.7));
  const plot = HEIGHT - PAD_BOTTOM - PAD_TOP;
  // Label every n-th day so the labels never overlap.
  const every = Math.max(1, Math.ceil(bars.length / 8));
  return html`<figure class="chart-figure"><figcaption>${title}</figcaption>
<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}: ${bars.map((b) => `${b.label} ${b.text}`).join('; ')}" xmlns="http://www.w3.org/2000/svg">
<line class="axis" x1="${PAD_LEFT}" y1="${HEIGHT - PAD_BOTTOM}" x2="${WIDTH - PAD_LEFT}" y2="${HEIGHT - PAD_BOTTOM}"/>
${bars.map((bar, i) => {
  const height = max > 0 ? Math.round((Math.max(0, bar.value) / max) * plot) : 0;
  const x = Math.round(PAD_LEFT + i * slot + (slot - barWidth) / 2);
  return html`<rect class="${options.alt ? 'bar-alt' : 'bar'}" x="${x}" y="${HEIGHT - PAD_BOTTOM - height}" width="${Math.round(barWidth)}" height="${height}"><title>${bar.label}: ${bar.text}</title></rect>${
    i % every === 0 ? html`<text x="${x}" y="${HEIGHT - 10}">${bar.label.slice(5)}</text>` : ''
  }`;
})}
</svg></figure>`;
}

/** Horizontal bars, one per category (decline reasons), longest first. */
export function barList(title: string, bars: readonly Bar[]): Html {
  if (bars.length === 0) return html`<figure class="chart-figure"><figcaption>${title}</figcaption><p class="empty">Nothing in this period.</p></figure>`;
  const max = Math.max(...bars.map((b) => b.value), 1);
  const row = 28;
  const height = bars.length * row + 8;
  const labelWidth = 300;
  return html`<figure class="chart-figure"><figcaption>${title}</figcaption>
<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${title}: ${bars.map((b) => `${b.label} ${b.text}`).join('; ')}" xmlns="http://www.w3.org/2000/svg">
${bars.map((bar, i) => {
  const width = Math.round((bar.value / max) * (WIDTH - labelWidth - 60));
  return html`<text x="4" y="${i * row + 20}">${bar.label.length > 44 ? `${bar.label.slice(0, 43)}…` : bar.label}</text><rect class="bar-alt" x="${labelWidth}" y="${i * row + 6}" width="${Math.max(1, width)}" height="${row - 10}"><title>${bar.label}: ${bar.text}</title></rect><text x="${labelWidth + width + 6}" y="${i * row + 20}">${bar.text}</text>`;
})}
</svg></figure>`;
}
