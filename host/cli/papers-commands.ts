// `rlm-studio ingest`, `papers`, `paper` and `reextract`: build paper sets from PDFs and QASPER
// JSON, list them, print the text the REPL sees, and read papers again with another engine.
import { Command, InvalidArgumentError } from 'commander';
import type { IngestResult } from '../../app/api/index.ts';
import { extractEngines, type ExtractEngine } from '../../app/papers/index.ts';
import { progressBar, silentProgress } from './progress.ts';
import { withLibrary } from './workspace.ts';

function describe(result: IngestResult): string {
  switch (result.outcome) {
    case 'added':
      return `added      ${result.paperId ?? ''}  ${result.input}`;
    case 'duplicate':
      return `duplicate  ${result.paperId ?? ''}  ${result.input} (already in the set)`;
    case 'failed':
      return `FAILED     ${result.input}: ${result.error?.name ?? 'Error'}: ${result.error?.message ?? ''}`;
  }
}

export function ingestCommand(): Command {
  return new Command('ingest')
    .description('add PDFs, folders of PDFs and QASPER JSON files to a paper set')
    .argument('<inputs...>', 'PDF files, folders (searched recursively) or QASPER .json files')
    .requiredOption('--set <name>', 'the paper set to add them to (created if new)')
    .option('--json', 'print one JSON object {set, results} instead of prose')
    .action(
      async (inputs: string[], options: { set: string; json?: boolean }, command: Command) => {
        const results = await withLibrary(command, async (library) => {
          const bar = options.json ? silentProgress : progressBar();
          const started = performance.now();
          // Ctrl-C cancels: the papers read so far stay, the rest are listed as not read.
          const controller = new AbortController();
          const cancel = () => {
            controller.abort();
          };
          process.once('SIGINT', cancel);
          const all = await library
            .importPaths(
              options.set,
              inputs,
              (result, done, total) => {
                bar.update(done, total, result.input);
              },
              controller.signal,
            )
            .finally(() => process.off('SIGINT', cancel));
          bar.finish();
          if (!options.json) {
            for (const result of all) console.log(describe(result));
            const added = all.filter((r) => r.outcome === 'added').length;
            const failed = all.filter((r) => r.outcome === 'failed').length;
            console.log(
              `${added} added, ${all.length - added - failed} duplicate, ${failed} failed in ${((performance.now() - started) / 1000).toFixed(1)} s (set '${options.set}')`,
            );
          }
          return all;
        });
        if (options.json) console.log(JSON.stringify({ set: options.set, results }));
        if (results.some((result) => result.outcome === 'failed')) process.exitCode = 2;
      },
    );
}

export function papersCommand(): Command {
  return new Command('papers')
    .description('list the paper sets, or the papers of one set')
    .argument('[set]', 'the paper set to list')
    .option('--json', 'print JSON instead of a table')
    .action(async (set: string | undefined, options: { json?: boolean }, command: Command) => {
      await withLibrary(command, (library) => {
        if (set === undefined) {
          const sets = library.sets();
          if (options.json) console.log(JSON.stringify({ sets }));
          else if (sets.length === 0)
            console.log('No paper sets yet: add one with `rlm-studio ingest FILES --set NAME`.');
          else
            for (const s of sets)
              console.log(
                `${s.name}\t${s.papers} papers\t${s.pages} pages\t${s.words} words\t${s.failures} failed`,
              );
          return;
        }
        const listing = library.papers(set);
        if (options.json) {
          console.log(
            JSON.stringify({ set: listing.set, papers: listing.papers, errors: listing.failures }),
          );
          return;
        }
        console.log('id\ttitle\tpages\twords\tsections\tread by');
        for (const paper of listing.papers) {
          console.log(
            `${paper.id}\t${paper.title}\t${paper.pages}\t${paper.words}\t${paper.sections}\t${paper.engine}`,
          );
        }
        for (const failure of listing.failures)
          console.log(
            `error\t${failure.input}\t${failure.error?.name ?? ''}: ${failure.error?.message ?? ''}`,
          );
      });
    });
}

export function paperCommand(): Command {
  return new Command('paper')
    .description('show one paper of a set')
    .argument('<set>', 'the paper set')
    .argument('<id>', 'the paper id (see `rlm-studio papers SET`)')
    .option('--text', 'print the text the REPL sees (### PAPER header, abstract, full text)')
    .option('--json', 'print the paper as JSON')
    .action(
      async (
        set: string,
        id: string,
        options: { text?: boolean; json?: boolean },
        command: Command,
      ) => {
        await withLibrary(command, (library) => {
          const paper = library.paper(set, id);
          if (options.text) {
            process.stdout.write(
              paper.contextText.endsWith('\n') ? paper.contextText : `${paper.contextText}\n`,
            );
          } else if (options.json) {
            console.log(JSON.stringify(paper));
          } else {
            console.log(`${paper.id}: ${paper.title}`);
            console.log(`authors: ${paper.authors.join(', ') || '(not found)'}`);
            console.log(
              `${paper.pages} pages, ${paper.words} words, ${paper.sections} sections, read by ${paper.engine}`,
            );
            for (const section of paper.sectionList)
              console.log(
                `${'  '.repeat(section.level)}${section.title}${section.references ? ' [references]' : ''}`,
              );
          }
        });
      },
    );
}

function engineOption(value: string): ExtractEngine {
  if ((extractEngines as readonly string[]).includes(value)) return value as ExtractEngine;
  throw new InvalidArgumentError(`expected ${extractEngines.join(' or ')}`);
}

export function reextractCommand(): Command {
  return new Command('reextract')
    .description(
      "read a set's papers again from their stored PDFs (papers read by pdf.js before PDFium did ingestion stay as they were until this); offsets marked on the old text may move",
    )
    .argument('[ids...]', 'the papers to read again (default: every PDF of the set)')
    .requiredOption('--set <name>', 'the paper set')
    .option(
      '--engine <engine>',
      `the engine: ${extractEngines.join(' or ')}`,
      engineOption,
      'pdfium',
    )
    .option('--json', 'print one JSON object {set, results}')
    .action(
      async (
        ids: string[],
        options: { set: string; engine: ExtractEngine; json?: boolean },
        command: Command,
      ) => {
        const results = await withLibrary(command, (library) =>
          library.reextract(options.set, ids.length > 0 ? ids : undefined, options.engine),
        );
        if (options.json) console.log(JSON.stringify({ set: options.set, results }));
        else
          for (const result of results)
            console.log(
              result.outcome === 'reextracted'
                ? `read again ${result.paperId} (${result.engine})`
                : `FAILED     ${result.paperId}: ${result.error?.name ?? 'Error'}: ${result.error?.message ?? ''}`,
            );
        if (results.some((result) => result.outcome === 'failed')) process.exitCode = 2;
      },
    );
}
