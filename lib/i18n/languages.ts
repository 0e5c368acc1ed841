/** The six languages of every visitor-facing page. */
export const LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'pt'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_CHOICES = ['auto', ...LANGUAGES] as const;
export type LanguageChoice = (typeof LANGUAGE_CHOICES)[number];
export const FALLBACK_LANGUAGE: Language = 'en';

export const isLanguage = (value: unknown): value is Language => (LANGUAGES as readonly unknown[]).includes(value);
