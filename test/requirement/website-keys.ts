import type { TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';

export interface WebsiteKeys {
  webmasterId: number;
  websiteId: number;
  live: string;
  test: string;
}

/** A website listing `regions`, with its LIVE and TEST public keys. */
export async function createWebsiteWithKeys(app: TestApp, regions: string[]): Promise<WebsiteKeys> {
  const { runtime } = app.provider;
  const webmaster = await createWebmasterFixture(runtime);
  const { websiteId, keys } = await createClientFixture(runtime, webmaster.id, { regions });
  return { webmasterId: webmaster.id, websiteId, live: keys.LIVE, test: keys.TEST };
}

export interface Requirement {
  required: boolean;
  country: string;
  country_subdivision: string | null;
  age_threshold: number;
  challenges: string[];
  minimum_assurance_level: string;
}

/** GET /v1/requirement for `key` with extra request headers; the parsed JSON and the response. */
export async function fetchRequirement(
  app: TestApp,
  key: string,
  headers: Record<string, string> = {},
  extraQuery = '',
): Promise<{ response: Response; body: Requirement }> {
  const response = await fetch(`${app.url}/v1/requirement?key=${encodeURIComponent(key)}${extraQuery}`, { headers });
  return { response, body: (await response.json()) as Requirement };
}
