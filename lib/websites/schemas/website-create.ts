import { challengesField, domainField, languageField, nameField, regionsField } from './fields.js';

/** Body of POST /external/website (spec 4.2 #2). Omitted language, challenges and regions take the defaults of spec 2.4. */
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
