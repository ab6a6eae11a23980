/** The French change-of-platform wire format: states and codes, subject grammar, the 18-column CSV. */
export * from './states.ts';
export * from './subject.ts';
export * from './csv.ts';
