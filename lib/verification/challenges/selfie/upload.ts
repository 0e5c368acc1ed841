import type { Context } from 'koa';
import { HttpError } from '../../../http/errors.js';

/** Yoti's largest accepted image is 1.5 MB; the form adds a few hundred bytes of fields and boundaries. */
export const MAX_IMAGE_BYTES = 1_500_000;
const MAX_BODY_BYTES = MAX_IMAGE_BYTES + 16_384;

export interface SelfieForm {
  fields: Record<string, string>;
  /** the still image, JPEG or PNG, held in memory only */
  image?: Buffer;
}

/**
 * Reads the selfie form (multipart/form-data: the `image` file plus text fields) into memory, never to disk,
 * refusing anything over the limit with 413 before buffering it.
 */
export async function readSelfieForm(ctx: Context, tooLarge: string): Promise<SelfieForm> {
  const type = ctx.get('Content-Type');
  if (!/^multipart\/form-data;/i.test(type)) throw new HttpError(415, 'Unsupported Media Type');
  if (Number(ctx.get('Content-Length') || 0) > MAX_BODY_BYTES) throw new HttpError(413, tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, tooLarge);
    chunks.push(chunk);
  }
  let form: FormData;
  try {
    form = await new Response(Buffer.concat(chunks), { headers: { 'Content-Type': type } }).formData();
  } catch {
    throw new HttpError(400, 'Bad Request');
  }
  const fields: Record<string, string> = {};
  let image: Buffer | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else if (name === 'image' && value.size > 0) image = Buffer.from(await value.arrayBuffer());
  }
  return image && isImage(image) ? { fields, image } : { fields };
}

/** JPEG (FF D8 FF) or PNG (89 50 4E 47) by their magic bytes; the browser's declared type is not trusted. */
function isImage(bytes: Buffer): boolean {
  const jpeg = bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  const png = bytes.length > 8 && bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  return jpeg || png;
}
