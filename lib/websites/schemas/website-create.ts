import { challengesField, domainField, languageField, nameField, regionsField } from './fields.js';

/** Body of POST /external/website. Omitted language, challenges and regions take the defaults docs/external-api.md states. */
export const websiteCreateSchema = {
  title: 'WebsiteCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'domain'],
  properties: {
    name: nameField,
    domain: domainField,
    language: languageField,
    challenges: challengesField,
    regions: regionsField,
  },
} as const;
