import * as client from 'openid-client';
import type { FederatedSettings } from './settings.js';

/** The provider as an OpenID Connect client sees it, discovered on first use. */
export interface Upstream {
  /** Metadata and client in one; rejects (and is retried next time) when the provider cannot be reached. */
  configuration(): Promise<client.Configuration>;
}

const isLoopbackHttp = (url: string): boolean => url.startsWith('http://');

/** Safe requests (discovery, keys, userinfo) get one more try after a network error or a 5xx; the token request never does. */
const retryingFetch: client.CustomFetch = async (url, options) => {
  const attempt = () => fetch(url, options);
  if (options.method !== 'GET') return attempt();
  try {
    const response = await attempt();
    if (response.status < 500) return response;
  } catch (error) {
    if (options.signal?.aborted) throw error;
  }
  return attempt();
};

function clientAuthentication(settings: FederatedSettings): client.ClientAuth {
  switch (settings.tokenAuthMethod) {
    case 'client_secret_basic':
      return client.ClientSecretBasic(settings.clientSecret);
    case 'client_secret_post':
      return client.ClientSecretPost(settings.clientSecret);
    case 'none':
      return client.None();
  }
}

async function build(settings: FederatedSettings): Promise<client.Configuration> {
  const insecure = [settings.issuer, settings.discoveryUrl ?? settings.endpoints?.authorization ?? ''].some(
    isLoopbackHttp,
  );
  const metadata: Partial<client.ClientMetadata> = settings.idTokenAlg
    ? { id_token_signed_response_alg: settings.idTokenAlg }
    : {};
  const execute = [
    ...(insecure ? [client.allowInsecureRequests] : []),
    ...(settings.responseType === 'id_token' ? [client.useIdTokenResponseType] : []),
  ];
  let configuration: client.Configuration;
  if (settings.endpoints) {
    configuration = new client.Configuration(
      {
        issuer: settings.issuer,
        authorization_endpoint: settings.endpoints.authorization,
        jwks_uri: settings.endpoints.jwks,
        ...(settings.endpoints.token ? { token_endpoint: settings.endpoints.token } : {}),
        ...(settings.endpoints.userinfo ? { userinfo_endpoint: settings.endpoints.userinfo } : {}),
      },
      settings.clientId,
      metadata,
      clientAuthentication(settings),
    );
    configuration.timeout = settings.timeout;
    configuration[client.customFetch] = retryingFetch;
    for (const extension of execute) extension(configuration);
  } else {
    configuration = await client.discovery(
      new URL(settings.discoveryUrl!),
      settings.clientId,
      metadata,
      clientAuthentication(settings),
      {
        execute,
        timeout: settings.timeout,
        [client.customFetch]: retryingFetch,
      },
    );
    // Given a metadata URL, openid-client leaves the issuer unchecked: the operator's ISSUER must be the one the document names.
    const discovered = configuration.serverMetadata().issuer;
    if (new URL(discovered).href !== new URL(settings.issuer).href) {
      throw new Error(`the discovery document names issuer ${discovered}, not the configured ${settings.issuer}`);
    }
  }
  return configuration;
}

export function createUpstream(settings: FederatedSettings): Upstream {
  let pending: Promise<client.Configuration> | undefined;
  return {
    configuration() {
      pending ??= build(settings).catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    },
  };
}

/** True when the provider could not be reached or failed on its side (timeout, network, 5xx), as opposed to a bad answer. */
export function isUpstreamDown(error: unknown): boolean {
  if (error instanceof DOMException) return error.name === 'TimeoutError' || error.name === 'AbortError';
  if (error instanceof TypeError) return error.message === 'fetch failed';
  if (error instanceof client.ResponseBodyError) return error.status >= 500;
  if (error instanceof client.ClientError) return error.cause instanceof Response && error.cause.status >= 500;
  return false;
}
