export { brandingAssets, type BrandView } from './assets.js';
export { loadBranding, type Branding, type BrandingOptions } from './settings.js';
