import { createRequire } from 'node:module';

/**
 * The few DOM members the trusted list is read through, typed here: @xmldom/xmldom 0.8 declares its types through
 * the whole browser DOM library, which would leak browser globals into every module of the project.
 */
export interface XmlElement {
  nodeType: number;
  localName: string | null;
  namespaceURI: string | null;
  textContent: string | null;
  parentNode: unknown;
  childNodes: ArrayLike<XmlElement>;
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(namespace: string, name: string): ArrayLike<XmlElement>;
}

interface XmlDom {
  DOMParser: new (options: { errorHandler: Record<'warning' | 'error' | 'fatalError', (message: string) => void> }) => {
    parseFromString(xml: string, mimeType: string): { documentElement: XmlElement | null } | undefined;
  };
}

/** The parser xml-crypto itself depends on and uses, so one parser reads what the signature check reads. */
const { DOMParser } = createRequire(createRequire(import.meta.url).resolve('xml-crypto'))('@xmldom/xmldom') as XmlDom;

/** The root element of well-formed XML, or undefined when the parser reported any error. */
export function parseXml(xml: string): XmlElement | undefined {
  let wellFormed = true;
  const refuse = (): void => {
    wellFormed = false;
  };
  const root = new DOMParser({
    errorHandler: { warning: () => undefined, error: refuse, fatalError: refuse },
  }).parseFromString(xml, 'text/xml')?.documentElement;
  return wellFormed && root ? root : undefined;
}
