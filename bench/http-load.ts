import autocannon from 'autocannon';
import { round } from './flows.js';

export interface HttpLoad {
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/**
 * autocannon against one loopback URL for `seconds`. `distinctClients` sends each request with its own
 * X-Forwarded-For (the server trusts the proxy), so per-IP rate limits see many visitors, as in production.
 */
export async function hammer(
  url: string,
  options: { headers?: Record<string, string>; distinctClients?: boolean; connections?: number; seconds?: number },
): Promise<HttpLoad> {
  const connections = options.connections ?? 10;
  const seconds = options.seconds ?? 5;
  let counter = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: options.headers ?? {},
    ...(options.distinctClients
      ? {
          requests: [
            {
              setupRequest: (request) => {
                counter += 1;
                return {
                  ...request,
                  headers: {
                    ...request.headers,
                    'x-forwarded-for': `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`,
                  },
                };
              },
            },
          ],
        }
      : {}),
  });
  return {
    connections,
    seconds,
    requestsPerSecond: round(result.requests.average),
    p50Ms: round(result.latency.p50),
    p99Ms: round(result.latency.p99),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
