import { expect } from 'chai';
import type { Database } from '../../lib/store/database.js';

/** A response as a caller of the External API sees it. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** API token; undefined sends no Authorization header */
  token?: string | undefined;
  /** sent as JSON */
  json?: unknown;
  /** sent verbatim (with the given headers) */
  raw?: string;
  headers?: Record<string, string>;
}

/** Calls `method path` on the running app over real HTTP. */
export async function request<T = unknown>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.raw;
  if (options.json !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A client bound to one app and one token. */
export function apiClient(baseUrl: string, token: string | undefined) {
  const call = <T>(method: string, path: string, json?: unknown) =>
    request<T>(baseUrl, method, `/external${path}`, { token, ...(json !== undefined ? { json } : {}) });
  return {
    get: <T = unknown>(path: string) => call<T>('GET', path),
    post: <T = unknown>(path: string, json: unknown) => call<T>('POST', path, json),
    patch: <T = unknown>(path: string, json?: unknown) => call<T>('PATCH', path, json),
    put: <T = unknown>(path: string, json: unknown) => call<T>('PUT', path, json),
    delete: <T = unknown>(path: string) => call<T>('DELETE', path),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

/** Everything the External API can change, to prove a rejected request changed nothing. */
export async function snapshot(db: Database): Promise<string> {
  const tables = {
    websites: await db('websites').orderBy('id').select(),
    website_keys: await db('website_keys').orderBy(['website_id', 'environment']).select(),
    oauth2_configs: await db('oauth2_configs').orderBy('id').select(),
    oauth2_credentials: await db('oauth2_credentials').orderBy('id').select(),
  };
  return JSON.stringify(tables);
}

const STATUS_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** Asserts the External API's error: exactly {message, error, statusCode}, error the status name; returns the message. */
export function expectError(response: ApiResponse, status: number): string {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const body = response.body as { message: unknown };
  expect(body).to.have.all.keys('message', 'error', 'statusCode');
  expect(body).to.include({ statusCode: status, error: STATUS_NAMES[status] });
  expect(body.message).to.be.a('string').and.not.equal('');
  return body.message as string;
}

export interface OperationCall {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  json?: unknown;
}

/** The ten operations of the External API and the website policy pair, with valid bodies, aimed at one website (its id may belong to anybody). */
export function everyOperation(websiteId: number | string): OperationCall[] {
  const website = `/website/${websiteId}`;
  return [
    { name: 'retrieve all websites', method: 'GET', path: '/website' },
    { name: 'create website', method: 'POST', path: '/website', json: { name: 'New', domain: 'new.example.com' } },
    { name: 'update website', method: 'PATCH', path: website, json: { name: 'Renamed' } },
    { name: 'retrieve website', method: 'GET', path: website },
    { name: 'regenerate website keys', method: 'PATCH', path: `${website}/key/live/regenerate` },
    { name: 'retrieve website keys', method: 'GET', path: `${website}/key/test` },
    {
      name: 'create OAuth2',
      method: 'POST',
      path: `${website}/oauth2/test`,
      json: { redirectUris: ['https://new.example.com/cb'] },
    },
    {
      name: 'update OAuth2',
      method: 'PATCH',
      path: `${website}/oauth2/live`,
      json: { redirectUris: ['https://new.example.com/cb'] },
    },
    { name: 'regenerate OAuth2 client id/secret', method: 'PATCH', path: `${website}/oauth2/live/regenerate` },
    { name: 'retrieve OAuth2', method: 'GET', path: `${website}/oauth2/live` },
    { name: 'retrieve policy', method: 'GET', path: `${website}/policy` },
    { name: 'retrieve verifications', method: 'GET', path: `${website}/verifications` },
    {
      name: 'replace policy',
      method: 'PUT',
      path: `${website}/policy`,
      json: { rules: [{ regions: ['FR'], ageThreshold: 18 }] },
    },
  ];
}

/** Sends one operation call with `token` (undefined: no Authorization header) or with explicit headers. */
export const send = (
  baseUrl: string,
  call: OperationCall,
  token: string | undefined,
  headers: Record<string, string> = {},
) =>
  request(baseUrl, call.method, `/external${call.path}`, {
    token,
    headers,
    ...(call.json !== undefined ? { json: call.json } : {}),
  });
