// XML text from a tree in fast-xml-parser's builder form: an object's keys are child elements in
// order, an array repeats its element, "@_name" keys are attributes, "#text" is an element's text
// and "?xml" the declaration. The builder escapes; it does not check, so what XML 1.0 cannot carry
// (control characters, lone surrogates, names that are not names) is refused here first, never
// written into a statement a bank parser would reject.
import { XMLBuilder } from 'fast-xml-parser';

export type XmlText = string;
export interface XmlElement {
  [key: string]: XmlText | XmlElement | XmlElement[] | XmlText[];
}

const NAME = /^[A-Za-z_][\w.-]*$/;
// XML 1.0 Char production: tab, line feed, carriage return, and U+0020 upwards but surrogates, U+FFFE and U+FFFF.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const builder = new XMLBuilder({ ignoreAttributes: false, format: true, indentBy: '  ', suppressEmptyNode: true });

function check(value: XmlElement[string], key: string): void {
  if (key !== '?xml' && key !== '#text' && !NAME.test(key.startsWith('@_') ? key.slice(2) : key)) throw new RangeError(`not an XML name: ${key}`);
  if (typeof value === 'string') {
    if (NOT_XML_CHAR.test(value)) throw new RangeError('text holds a character XML 1.0 cannot carry');
  } else if (Array.isArray(value)) {
    for (const item of value) check(item, key);
  } else {
    for (const [k, v] of Object.entries(value)) check(v, k);
  }
}

/** The document's text: the declaration (from "?xml"), then the root element, two spaces per level. */
export function buildXml(tree: XmlElement): string {
  for (const [k, v] of Object.entries(tree)) check(v, k);
  return builder.build(tree) as string;
}
