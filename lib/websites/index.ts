// The website services shared by the External API, the webmasters platform and the CLI, so their rules cannot diverge.
export { createWebsite, deleteWebsite, getWebsite, listWebsites, updateWebsite } from './websites.js';
export { getWebsiteKey, regenerateWebsiteKey } from './keys.js';
export {
  createOAuth2Config,
  CREDENTIAL_GRACE_SECONDS,
  getOAuth2Config,
  listOAuth2Configs,
  regenerateOAuth2Credentials,
  updateOAuth2Config,
} from './oauth2.js';
export * from './models.js';
export {
  checkDomainVerification,
  getDomainVerification,
  revokeDomainVouching,
  vouchForDomain,
  type DomainVerification,
  type DomainVerifiedBy,
  type DomainVouching,
} from './domain-verification.js';
export {
  getWebsitePolicy,
  PolicyRefusal,
  type PolicyProblem,
  updateWebsitePolicy,
  type WebsitePolicy,
  type WebsitePolicyInput,
} from './policy.js';
