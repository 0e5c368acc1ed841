import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import type { Logger } from '../../../../../lib/log.js';

/** A Yoti application key pair: the PEM file the operator downloads from the Yoti Hub, and the public half Yoti keeps. */
export function yotiKeyPair(): { keyFile: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = join(mkdtempSync(join(tmpdir(), 'yoti-key-')), 'application.pem');
  writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return { keyFile, publicKey };
}

/** Checks a request's X-Yoti-Auth-Digest the way Yoti documents it: SHA256withRSA over METHOD&path?query&base64(body). */
export function yotiSignatureValid(
  publicKey: KeyObject,
  method: string,
  pathWithQuery: string,
  body: string,
  digest: string,
): boolean {
  const endpoint = pathWithQuery.replace(/^\/ai\/v1/, '');
  const message = `${method}&${endpoint}&${Buffer.from(body).toString('base64')}`;
  return verify('sha256', Buffer.from(message), publicKey, Buffer.from(digest, 'base64'));
}

export const YOTI_SDK_ID = '5f0d8e3c-1b2a-4c3d-8e9f-0a1b2c3d4e5f';

/** Only the vendors' hosts are faked; our own app (127.0.0.1) is always reached over real HTTP. */
export function onlyVendorsFaked(): void {
  nock.disableNetConnect();
  nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.startsWith('localhost'));
}

export function restoreNetwork(): void {
  nock.cleanAll();
  nock.enableNetConnect();
}

/** A logger that keeps every line, to prove what is (and is not) logged. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      lines.push(JSON.stringify({ level, message, ...fields }));
    };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** A small but real JPEG header followed by filler: the adapters never decode images, the vendor does. */
export const fakeJpeg = (size = 60_000): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(size - 4, 7)]);
