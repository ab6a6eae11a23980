#!/usr/bin/env node
/** The `einv` command line: see clients/cli/program.ts and the README's "Command line" section. */
import { main } from '../clients/cli/program.ts';

await main(process.argv);
