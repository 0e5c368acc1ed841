import QRCode from 'qrcode';

/** The standard quiet zone (ISO/IEC 18004): four light modules on every side. */
const QUIET_ZONE = 4;
/** Screen pixels per module: whole pixels keep every module's edge sharp at 1x, where phones read codes best. */
const PIXELS_PER_MODULE = 3;

/**
 * The wallet request URL as an inline SVG QR code, drawn here (the `qrcode` library encodes; no image service sees
 * the URL). Error correction L keeps the by-value request at the smallest version; the SVG is sized in whole pixels
 * per module so that a 1x rendering is sharp.
 */
export function qrCodeSvg(text: string): Promise<string> {
  const modules = QRCode.create(text, { errorCorrectionLevel: 'L' }).modules.size + 2 * QUIET_ZONE;
  return QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'L',
    margin: QUIET_ZONE,
    width: modules * PIXELS_PER_MODULE,
    color: { dark: '#000000', light: '#ffffff' },
  });
}
