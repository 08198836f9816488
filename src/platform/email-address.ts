/**
 * An email address as Parley accepts it: the `email` format of ajv-formats
 * (an RFC 5321 dot-atom local part, a dotted host name), widened to RFC 6531's
 * internationalised addresses, whose local part and domain labels may hold
 * any letter, mark or digit (`zoë.clark@mail.example.com`,
 * `ユーザー@例え.jp`). The API's `email` format and the import's check are both this
 * one test, so an address one of them takes the other takes too.
 */
const ATOM = "[\\p{L}\\p{M}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[\\p{L}\\p{N}](?:[\\p{L}\\p{M}\\p{N}-]*[\\p{L}\\p{M}\\p{N}])?';
const EMAIL = new RegExp(`^${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${LABEL}$`, 'u');

/** Whether the text is one email address, with nothing around it. */
export function isEmailAddress(text: string): boolean {
  return EMAIL.test(text);
}
