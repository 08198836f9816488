import { normaliseForKeywords } from './opt-out-recognizer.js';

/**
 * Words that mark an opt-out as written in Spanish: the Spanish keywords the recogniser takes (BAJA, ALTO,
 * PARA, CANCELAR, DETENER, BASTA) and the words of its Spanish phrases ("no me llames más", "dejen de
 * escribirme", "denme de baja"). None is an English word a STOP would be written with.
 */
const SPANISH = new RegExp(
  `(?:^| )(?:${[
    'baja',
    'alto',
    'para',
    'parar',
    'paren',
    'pare',
    'cancelar',
    'detener',
    'basta',
    'dejen',
    'deja',
    'deje',
    'dejes',
    'dejar',
    'llames',
    'llamen',
    'llame',
    'llamar',
    'llamarme',
    'escribas',
    'escriban',
    'escribirme',
    'escribir',
    'mensajes',
    'mensaje',
    'correos',
    'llamadas',
    'quiero',
    'por favor',
    'porfa',
    'gracias',
    'nunca',
    'jamas',
    'mas',
    'numero',
    'equivocado',
    'equivocada',
    'denme',
    'darme',
    'dame',
    'molesten',
    'contacten',
    'lista',
    'ya no',
  ].join('|')})(?: |$)`,
);

export type OptOutLanguage = 'en' | 'es';

/**
 * The language an opt-out was written in, for the one confirmation it gets: Spanish when any of its words is
 * one of the Spanish opt-out's, else English (the default of a US short code's confirmation). Normalised as the
 * recogniser reads it, so accents and case do not matter ("No me llames MÁS").
 */
export function optOutLanguage(text: string): OptOutLanguage {
  return SPANISH.test(normaliseForKeywords(text)) ? 'es' : 'en';
}
