import { challengesField, languageField, nameField, regionsField } from './fields.js';

/** Body of PATCH /external/website/{website_id}: no domain, at least one field. */
export const websiteUpdateSchema = {
  title: 'WebsiteUpdate',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: nameField,
    language: languageField,
    challenges: challengesField,
    regions: regionsField,
  },
} as const;
