import { inflateSync } from 'node:zlib';
import { Decoder, Tag } from 'cbor-x';
import type { Logger } from '../../../log.js';
import type { Clock } from '../../../clock.js';
import { issuerSignatureValid, type IssuerAuth } from './issuer-auth.js';
import { checkSignerPath } from './signer-path.js';
import type { TrustAnchors } from './trust-anchors.js';
import { FetchError, httpsGet } from '../../../security/outbound-get.js';
import type { ListFetchOptions } from './trusted-list-fetch.js';

/**
 * Revocation through the IETF Token Status List (draft-ietf-oauth-status-list), as the EU age-verification profile
 * uses it: the MSO names `status.status_list` {idx, uri}; the status list token at `uri` is a CWT (COSE_Sign1,
 * `typ` application/statuslist+cwt) whose claim 65533 holds `{bits, lst}`, `lst` the statuses compressed with
 * DEFLATE in the zlib format, `bits` per attestation. Status 0 is valid; anything else (1 invalid, 2 suspended, or
 * an application-specific value) refuses the attestation.
 */

const decoder = new Decoder({ useRecords: false, mapsAsObjects: false });

/** Where an attestation's status is: its index in the list at `uri`. */
export interface StatusReference {
  idx: number;
  uri: string;
}

const field = (map: unknown, key: string | number): unknown => (map instanceof Map ? map.get(key) : undefined);
const untag = (value: unknown, tag: number): unknown =>
  value instanceof Tag && value.tag === tag ? value.value : value;

/** The MSO's `status.status_list`, undefined when the attestation names none, or why it cannot be read. */
export function statusReference(issuerAuth: IssuerAuth): StatusReference | undefined | string {
  let mso: unknown;
  try {
    const embedded = untag(decoder.decode(issuerAuth.payload), 24);
    mso = embedded instanceof Uint8Array ? decoder.decode(embedded) : undefined;
  } catch {
    return 'unreadable MSO';
  }
  const status = field(mso, 'status');
  if (status === undefined) return undefined;
  const list = field(status, 'status_list');
  const idx = field(list, 'idx');
  const uri = field(list, 'uri');
  if (
    typeof idx !== 'number' ||
    !Number.isSafeInteger(idx) ||
    idx < 0 ||
    typeof uri !== 'string' ||
    !uri.startsWith('https://')
  )
    return "the MSO's status_list is not {idx, https uri}";
  return { idx, uri };
}

/** A verified status list: its statuses, and until when it may be used. */
interface StatusList {
  bits: number;
  statuses: Buffer;
  usableUntil: number;
}

class StatusListError extends Error {}

const TYP = 16;
const X5CHAIN = 33;
const CLAIMS = { sub: 2, exp: 4, ttl: 65534, statusList: 65533 } as const;
const STATUS_LIST_TYPE = 'application/statuslist+cwt';
/** A list that gives neither `exp` nor `ttl` is read again after this. */
const DEFAULT_LIFETIME_MS = 5 * 60 * 1000;
/** Status lists of millions of attestations stay far under this, compressed; decompressed, `bits` × their count. */
const MAX_TOKEN_BYTES = 4 * 1024 * 1024;
const MAX_STATUSES_BYTES = 32 * 1024 * 1024;

/**
 * Verifies a status list token read from `uri`: a COSE_Sign1 (CWT tag 61 and COSE tag 18 allowed) of type
 * application/statuslist+cwt, signed by a certificate whose path the same anchors as the attestations' vouch for
 * (the document-signer profile, signer-path.ts), for this very `uri` (claim `sub`), not expired.
 */
function readStatusListToken(bytes: Uint8Array, uri: string, anchors: TrustAnchors, now: Date): StatusList {
  let sign1: unknown;
  try {
    sign1 = untag(untag(decoder.decode(bytes), 61), 18);
  } catch {
    throw new StatusListError('the status list token is not CBOR');
  }
  if (!Array.isArray(sign1) || sign1.length !== 4)
    throw new StatusListError('the status list token is not a COSE_Sign1');
  const [protectedBytes, unprotected, payload, signature] = sign1 as unknown[];
  if (
    !(protectedBytes instanceof Uint8Array) ||
    !(unprotected instanceof Map) ||
    !(payload instanceof Uint8Array) ||
    !(signature instanceof Uint8Array)
  ) {
    throw new StatusListError('the status list token is not a COSE_Sign1');
  }
  const headers: unknown = protectedBytes.length ? decoder.decode(protectedBytes) : new Map();
  if (field(headers, TYP) !== STATUS_LIST_TYPE)
    throw new StatusListError('the status list token is not of type application/statuslist+cwt');
  const alg = field(headers, 1);
  const chains = [field(headers, X5CHAIN), unprotected.get(X5CHAIN)].filter((chain) => chain !== undefined);
  if (typeof alg !== 'number' || chains.length !== 1)
    throw new StatusListError('the status list token has no algorithm or no single x5chain');
  const x5chain = (Array.isArray(chains[0]) ? chains[0] : [chains[0]]) as unknown[];
  if (!x5chain.every((certificate) => certificate instanceof Uint8Array))
    throw new StatusListError("the status list token's x5chain holds something other than certificates");
  const path = checkSignerPath(x5chain as Uint8Array[], anchors, now);
  if (!path.trusted) throw new StatusListError(`the status list token's signer is not trusted (${path.problem})`);
  if (!issuerSignatureValid({ protectedBytes, alg, payload, signature, x5chain: x5chain as Uint8Array[] }, path.signer))
    throw new StatusListError("the status list token's signature does not verify");

  const claims: unknown = decoder.decode(payload);
  if (field(claims, CLAIMS.sub) !== uri)
    throw new StatusListError('the status list token is for another address (sub)');
  const exp = field(claims, CLAIMS.exp);
  const ttl = field(claims, CLAIMS.ttl);
  const nowSeconds = now.getTime() / 1000;
  if (typeof exp === 'number' && exp <= nowSeconds) throw new StatusListError('the status list token has expired');
  const list = field(claims, CLAIMS.statusList);
  const bits = field(list, 'bits');
  const lst = field(list, 'lst');
  if (![1, 2, 4, 8].includes(bits as number) || !(lst instanceof Uint8Array))
    throw new StatusListError('the status list token holds no {bits, lst}');
  let statuses: Buffer;
  try {
    statuses = inflateSync(lst, { maxOutputLength: MAX_STATUSES_BYTES });
  } catch {
    throw new StatusListError('the status list does not decompress');
  }
  // Used within its own lifetime: until exp, and no longer than ttl from now; a list that says neither, a few minutes.
  const end = Math.min(
    typeof exp === 'number' ? exp * 1000 : Infinity,
    typeof ttl === 'number' ? now.getTime() + ttl * 1000 : Infinity,
  );
  return {
    bits: bits as number,
    statuses,
    usableUntil: Number.isFinite(end) ? end : now.getTime() + DEFAULT_LIFETIME_MS,
  };
}

/** The status at `idx`: `bits` per entry, the first entry in the least significant bits of the first byte. */
function statusAt(list: StatusList, idx: number): number | undefined {
  const bit = idx * list.bits;
  const byte = list.statuses[Math.floor(bit / 8)];
  return byte === undefined ? undefined : (byte >> (bit % 8)) & ((1 << list.bits) - 1);
}

export type StatusVerdict = { status: 'valid' | 'revoked' } | { status: 'unknown'; problem: string };

/** What to do when a status list cannot be had or read: refuse the attestation, or accept it (the log says so either way). */
export type UnreachableStatus = 'refuse' | 'accept';

export interface StatusListOptions {
  fetch: ListFetchOptions;
  /** at most this many lists are kept (an attacker naming many addresses makes us forget, never grow) */
  maxCached?: number;
}

/**
 * Checks attestations' statuses against their status lists, each list fetched once and kept within its own
 * lifetime (exp, ttl), then read again. A list that cannot be fetched or verified is not kept.
 */
export function createStatusLists(runtime: { clock: Clock; log: Logger }, options: StatusListOptions) {
  const cache = new Map<string, StatusList>();
  const maxCached = options.maxCached ?? 100;

  async function listAt(uri: string, anchors: TrustAnchors, now: Date): Promise<StatusList> {
    const cached = cache.get(uri);
    if (cached && cached.usableUntil > now.getTime()) return cached;
    cache.delete(uri);
    const token = await httpsGet(uri, { ...options.fetch, accept: STATUS_LIST_TYPE, maxBytes: MAX_TOKEN_BYTES });
    const list = readStatusListToken(token, uri, anchors, now);
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
    cache.set(uri, list);
    return list;
  }

  return {
    async check(reference: StatusReference, anchors: TrustAnchors): Promise<StatusVerdict> {
      const now = runtime.clock.now();
      try {
        const status = statusAt(await listAt(reference.uri, anchors, now), reference.idx);
        if (status === undefined)
          return { status: 'unknown', problem: "the attestation's index is beyond its status list" };
        return { status: status === 0 ? 'valid' : 'revoked' };
      } catch (error) {
        if (!(error instanceof StatusListError) && !(error instanceof FetchError)) throw error;
        const problem =
          error instanceof StatusListError
            ? error.message
            : error.message.startsWith('its ')
              ? `the status list's ${error.message.slice(4)}`
              : `the status list ${error.message}`;
        runtime.log.warn('eu_av status list unavailable', { host: new URL(reference.uri).host, problem });
        return { status: 'unknown', problem };
      }
    },
  };
}

export type StatusLists = ReturnType<typeof createStatusLists>;
