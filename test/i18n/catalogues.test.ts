import { expect } from 'chai';
import { LANGUAGES, type Language } from '../../lib/i18n/languages.js';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { areaNames, libraryFiles, readArea, templateNames, templateSource } from './locale-files.js';

// Every language has every key of every area, nothing empty, the same {placeholders}, and no English left behind.

/** Identical to English on purpose in every language (names, not sentences). */
const SAME_AS_ENGLISH = new Set<string>([]);
/** A value this long (in words) is a sentence: a translation identical to English means it was not translated. */
const SENTENCE_WORDS = 3;

const placeholders = (value: string): string[] =>
  [...new Set([...value.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!))].sort();
const words = (value: string): number => value.replace(/\{\w+\}/g, ' ').match(/\p{L}{2,}/gu)?.length ?? 0;

type Catalogue = Record<string, string>;

/** An area's file per language, with the problems of their shape (missing file, not an object of strings). */
function loadArea(area: string): { files: Partial<Record<Language, Catalogue>>; problems: string[] } {
  const files: Partial<Record<Language, Catalogue>> = {};
  const problems: string[] = [];
  for (const language of LANGUAGES) {
    const content = readArea(language, area);
    if (content === undefined) {
      problems.push(`${language}/${area}.json is missing`);
    } else if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      problems.push(`${language}/${area}.json is not a JSON object`);
    } else {
      const entries = Object.entries(content as Record<string, unknown>);
      for (const [key, value] of entries)
        if (typeof value !== 'string') problems.push(`${language}/${area}.json: ${key} is not a string`);
      files[language] = Object.fromEntries(entries.filter(([, value]) => typeof value === 'string')) as Catalogue;
    }
  }
  return { files, problems };
}

function areaProblems(area: string): string[] {
  const { files, problems } = loadArea(area);
  const keys = new Set(Object.values(files).flatMap((catalogue) => Object.keys(catalogue)));
  const english = files.en ?? {};
  for (const key of [...keys].sort()) {
    for (const language of LANGUAGES) {
      const catalogue = files[language];
      if (!catalogue) continue;
      const value = catalogue[key];
      if (value === undefined) {
        problems.push(`${language}/${area}.json misses ${key}`);
        continue;
      }
      if (value.trim() === '') problems.push(`${language}/${area}.json: ${key} is empty`);
      const reference = english[key];
      if (reference === undefined || language === 'en') continue;
      if (placeholders(value).join() !== placeholders(reference).join()) {
        problems.push(
          `${language}/${area}.json: ${key} has placeholders {${placeholders(value).join('}, {')}} where English has {${placeholders(reference).join('}, {')}}`,
        );
      }
      if (value === reference && words(reference) >= SENTENCE_WORDS && !SAME_AS_ENGLISH.has(reference)) {
        problems.push(`${language}/${area}.json: ${key} is still in English ("${reference}")`);
      }
    }
  }
  return problems;
}

describe('translation catalogues', () => {
  const areas = areaNames();

  it('has at least the shared area', () => {
    expect(areas).to.include('common');
  });

  for (const area of areas) {
    it(`${area}.json: every language has every key, nothing empty, same placeholders, nothing left in English`, () => {
      const problems = areaProblems(area);
      expect(problems, `\n${problems.join('\n')}\n`).to.have.length(0);
    });
  }

  it('no key is defined by two areas', () => {
    const owners = new Map<string, string[]>();
    for (const area of areas) {
      for (const key of Object.keys(loadArea(area).files.en ?? {})) owners.set(key, [...(owners.get(key) ?? []), area]);
    }
    const twice = [...owners]
      .filter(([, owner]) => owner.length > 1)
      .map(([key, owner]) => `${key} in ${owner.join(' and ')}`);
    expect(twice, `\n${twice.join('\n')}\n`).to.have.length(0);
  });

  it("every key the code translates literally (t('a.b'), context.t('a.b')) exists in every language", () => {
    const known = Object.fromEntries(
      LANGUAGES.map((language) => [
        language,
        new Set(areas.flatMap((area) => Object.keys(loadArea(area).files[language] ?? {}))),
      ]),
    ) as Record<Language, Set<string>>;
    const problems: string[] = [];
    for (const file of libraryFiles()) {
      for (const [, key] of readFileSync(file, 'utf8').matchAll(
        /(?<![\w$])(?:\w+\.)?t\(\s*'([A-Za-z][\w-]*(?:\.[\w-]+)+)'\s*[,)]/g,
      )) {
        for (const language of LANGUAGES)
          if (!known[language].has(key!))
            problems.push(`${relative(packageRoot, file)} uses ${key}, missing in ${language}`);
      }
    }
    const unique = [...new Set(problems)];
    expect(unique, `\n${unique.join('\n')}\n`).to.have.length(0);
  });

  it('every key a template names literally exists in every language', () => {
    const known = Object.fromEntries(
      LANGUAGES.map((language) => [
        language,
        new Set(areas.flatMap((area) => Object.keys(loadArea(area).files[language] ?? {}))),
      ]),
    ) as Record<Language, Set<string>>;
    const problems: string[] = [];
    for (const template of templateNames()) {
      // only whole literal arguments: t('a.b') or t('a.b', {...}); computed keys are checked by rendering
      for (const [, , key] of templateSource(template).matchAll(/\bt\(\s*(['"])([^'"]+)\1\s*[,)]/g)) {
        for (const language of LANGUAGES)
          if (!known[language].has(key!)) problems.push(`${template} uses ${key}, missing in ${language}`);
      }
    }
    const unique = [...new Set(problems)];
    expect(unique, `\n${unique.join('\n')}\n`).to.have.length(0);
  });
});
