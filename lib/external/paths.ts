/** Where the External API is mounted; its routes and openapi.json's paths both derive from it. */
export const EXTERNAL_PREFIX = '/external';

/** Largest JSON body accepted, in KiB (20 redirect URIs of 2000 characters fit); more is 413. */
export const BODY_LIMIT_KIB = 64;
