import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { ConfigError } from '../../../config/settings.js';
import { readExtensions } from './certificate-extensions.js';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g;

/** The files an entry names: itself, or a directory's files (not its hidden files, not its subdirectories). */
function filesOf(variable: string, entry: string): string[] {
  try {
    if (!statSync(entry).isDirectory()) return [entry];
    return readdirSync(entry)
      .filter((name) => !name.startsWith('.'))
      .sort()
      .map((name) => join(entry, name))
      .filter((file) => !statSync(file).isDirectory());
  } catch {
    throw new ConfigError(`${variable}: ${entry} cannot be read`);
  }
}

/** The DER length a certificate's outer SEQUENCE declares, so a DER file with anything after it is not taken for one. */
function derLength(bytes: Buffer): number {
  if (bytes.length < 2 || bytes[0] !== 0x30) return -1;
  const first = bytes[1]!;
  if (first < 0x80) return 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || bytes.length < 2 + octets) return -1;
  return 2 + octets + bytes.subarray(2, 2 + octets).reduce((length, octet) => length * 256 + octet, 0);
}

/** The certificates of one file, PEM (one or more blocks) or DER (exactly one certificate), as DER. */
function certificatesOf(variable: string, file: string): Buffer[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new ConfigError(`${variable}: ${file} cannot be read`);
  }
  const blocks = [...bytes.toString('latin1').matchAll(PEM_BLOCK)].map(([, body]) =>
    Buffer.from(body!.replace(/\s+/g, ''), 'base64'),
  );
  const ders = blocks.length ? blocks : derLength(bytes) === bytes.length ? [bytes] : [];
  if (ders.length === 0) throw new ConfigError(`${variable}: ${file} is neither a PEM nor a DER certificate file`);
  for (const der of ders) {
    try {
      readExtensions(new X509Certificate(der).raw);
    } catch {
      throw new ConfigError(`${variable}: ${file} holds a certificate that cannot be parsed`);
    }
  }
  return ders;
}

/**
 * Every certificate in the files a setting names (comma-separated files or directories), PEM or DER. Nothing is
 * skipped silently: a file that holds no certificate stops start-up with a ConfigError naming the setting and the file.
 */
export function readCertificateFiles(variable: string, value: string): Buffer[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .flatMap((entry) => filesOf(variable, entry))
    .flatMap((file) => certificatesOf(variable, file));
}
