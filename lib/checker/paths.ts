/** Where the checker script surface answers (docs/checker.md). */
export const CHECKER_PATHS = {
  /** the host page's script */
  script: '/v1/checker.js',
  /** the script's own check of key, page origin and requirement, loaded as a script so a strict host CSP allows it */
  requirement: '/v1/checker/requirement.js',
  /** the public signing keys, loaded as a script, to check a result that came in the page address's fragment */
  keys: '/v1/checker/keys.js',
  /** the popup's first page: checks the request, then enters the OAuth2 authorization endpoint */
  start: '/v1/checker/start',
  /** the internal client's redirect_uri: turns the code into the signed result and hands it to the page */
  callback: '/v1/checker/callback',
} as const;
