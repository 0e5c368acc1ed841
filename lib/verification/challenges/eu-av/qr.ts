import QRCode from 'qrcode';

/**
 * The wallet request URL as an inline SVG QR code, drawn here (the `qrcode` library encodes; no image service sees
 * the URL). Error correction L keeps the long by-value request at the smallest module count that phones still read.
 */
export function qrCodeSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'L', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
}
