// A QR code drawn on the server as inline SVG (the TOTP setup's otpauth:// link): no image to
// fetch, no script, no inline style (colours come from portal.css), so the strict CSP holds. The
// modules come from qrcode-generator; the markup is ours, written through html`` like the charts.
import qrcode from 'qrcode-generator';
import { html, type Html } from '../html.ts';

/** The light margin around the code, in modules, that readers need (ISO/IEC 18004). */
const QUIET_ZONE = 4;

/**
 * `text` as a QR code (error correction M, the smallest version that holds it), labelled for
 * screen readers. `data-qr-text` carries the text the code was made from, so a test (or a curious
 * reader) can compare it with the link shown beside it.
 */
export function qrCode(text: string, label: string): Html {
  const qr = qrcode(0, 'M');
  // Byte mode takes one character per byte: hand it the UTF-8 bytes, whatever the text holds.
  qr.addData(String.fromCharCode(...new TextEncoder().encode(text)), 'Byte');
  qr.make();
  const count = qr.getModuleCount();
  const size = count + 2 * QUIET_ZONE;
  // One rectangle per run of dark modules on a row.
  let path = '';
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; ) {
      if (!qr.isDark(row, col)) {
        col++;
        continue;
      }
      let run = 1;
      while (col + run < count && qr.isDark(row, col + run)) run++;
      path += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h${run}v1h-${run}z`;
      col += run;
    }
  }
  return html`<svg class="qr" viewBox="0 0 ${size} ${size}" role="img" aria-label="${label}" data-qr-text="${text}" shape-rendering="crispEdges" xmlns="http://www.w3.org/2000/svg"><rect class="qr-light" width="${size}" height="${size}"/><path class="qr-dark" d="${path}"/></svg>`;
}
