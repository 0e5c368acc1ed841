import jsQRModule from 'jsqr';

// A CommonJS module: its `default` export is where the types say the import is.
const jsQR = jsQRModule.default;

/** Pixels per module when drawing the code for the decoder. */
const SCALE = 4;

/**
 * The text of a QR code drawn as the SVG the page embeds (a light square and one stroked path of horizontal runs,
 * one module high), rasterised here and read by jsQR: a decoder that shares nothing with the library that drew it.
 */
export function readQrSvg(svg: string): string {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const path = /<path stroke="[^"]+" d="([^"]+)"/.exec(svg)?.[1];
  if (!size || !path) throw new Error('not a QR code SVG');
  const dark = new Set<string>();
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path.matchAll(/([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?/g)) {
    if (command === 'M') [x, y] = [Number(a), Number(b)];
    else if (command === 'm') [x, y] = [x + Number(a), y + Number(b)];
    else {
      for (let column = x; column < x + Number(a); column++) dark.add(`${column},${Math.floor(y)}`);
      x += Number(a);
    }
  }
  const width = size * SCALE;
  const pixels = new Uint8ClampedArray(width * width * 4);
  for (let py = 0; py < width; py++) {
    for (let px = 0; px < width; px++) {
      const shade = dark.has(`${Math.floor(px / SCALE)},${Math.floor(py / SCALE)}`) ? 0 : 255;
      pixels.set([shade, shade, shade, 255], (py * width + px) * 4);
    }
  }
  const code = jsQR(pixels, width, width);
  if (!code) throw new Error('the QR code could not be read');
  return code.data;
}
