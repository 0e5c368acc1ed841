/** WCAG 2.x relative luminance of one sRGB channel (0-255). */
const channel = (value: number): number => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** The red, green and blue of `#rgb` or `#rrggbb`. */
export function parseHexColor(color: string): [number, number, number] {
  const hex = color.slice(1);
  const full =
    hex.length === 3
      ? hex
          .split('')
          .map((digit) => digit + digit)
          .join('')
      : hex;
  return [0, 2, 4].map((at) => Number.parseInt(full.slice(at, at + 2), 16)) as [number, number, number];
}

const luminance = (color: string): number => {
  const [r, g, b] = parseHexColor(color).map(channel) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** The WCAG contrast ratio of white text on `color` (1 to 21). */
export const contrastWithWhite = (color: string): number => 1.05 / (luminance(color) + 0.05);

/** WCAG 2.x AA for normal text. */
export const AA_CONTRAST = 4.5;
