export { brandingAssets, brandOf, brandView, type BrandView } from './assets.js';
export { loadBranding, DEFAULT_BRAND_NAME, type Branding, type BrandingOptions } from './settings.js';
