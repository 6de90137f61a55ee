# The REPL built-ins of RLM-SPEC section 2 for one agent. Calls that need the loop go through the
# one host callable and suspend only this agent's Python stack (JSPI run_sync) until they return.
# Invariant: what crosses to the host is JSON text, so no JS object ever reaches model code.
import json
import math
import re
import sys

# Injected by the runner.
host = None
run_sync = None
active = None
ExecutionCancelled = None


class RlmQueryError(RuntimeError):
    """A child agent failed; the message is the loop's reason."""


class LlmQueryError(RuntimeError):
    """A plain model call failed; the message is the loop's reason."""


class PaperNotFoundError(KeyError):
    def __str__(self):
        return self.args[0]


def safe_str(value, limit=2000):
    try:
        text = str(value)
    except BaseException as error:  # a model-defined __str__ may raise anything
        text = f'<str() failed: {type(error).__name__}>'
    return text if len(text) <= limit else text[:limit] + '...'


def to_repl_value(value, depth=0):
    """A JSON-ready copy: tuples and sets become lists, dict keys strings, other objects str()."""
    kind = type(value)
    if value is None or kind in (bool, str, int):
        return value
    if kind is float:
        return value if math.isfinite(value) else str(value)
    if depth >= 32:
        return '<nested too deep>'
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_repl_value(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {(key if type(key) is str else safe_str(key)): to_repl_value(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (str, int, float)):
        return to_repl_value((str if isinstance(value, str) else float if isinstance(value, float) else int)(value), depth)
    return safe_str(value)


def split_header(text):
    """(title, body) of a paper text that starts with `### PAPER: <title>`."""
    first, _, rest = text.partition('\n')
    if first.startswith('### PAPER:'):
        return first[len('### PAPER:'):].strip(), rest.lstrip('\n')
    title = first.strip() or text.strip()[:80]
    return title[:120], text


def _papers(ctx, caller):
    if isinstance(ctx, dict):
        for key, text in ctx.items():
            if not isinstance(text, str):
                raise TypeError(f'{caller}(): paper {key!r} is {type(text).__name__}, expected the paper text (str)')
        return ctx
    if isinstance(ctx, str):
        return {'context': ctx}
    raise TypeError(f'{caller}() takes the context: a dict of paper id -> text, or a str')


def _check_prompts(prompts, caller):
    if not isinstance(prompts, (list, tuple)) or not all(isinstance(p, str) for p in prompts):
        raise TypeError(f'{caller}() takes a list of prompt strings')
    return list(prompts)


def make(agent):
    """The built-ins of one agent, as closures over it."""

    def call(op, payload):
        promise = host('call', agent.id, op, json.dumps(payload))
        try:
            reply = run_sync(promise)
        finally:
            host('resume', agent.id)
            active[0] = True
        envelope = json.loads(reply)
        if envelope.get('cancelled'):
            raise ExecutionCancelled('the run was cancelled while this call was waiting')
        return envelope

    def ref(text):
        key = agent.ref_by_id.get(id(text))
        if key is not None and agent.original_text(key) is text:
            return {'ref': key}
        return {'text': text}

    def search(text, keyword, window=300, bidirectional=True):
        if not isinstance(keyword, str) or not keyword.strip():
            raise ValueError('search(): the keyword must be a non-empty string')
        if type(window) is not int or window < 1:
            raise ValueError(f'search(): window={window!r} is not valid; expected a positive int such as 300')
        if type(bidirectional) is not bool:
            raise ValueError('search(): bidirectional must be True or False')
        texts = _papers(text, 'search') if isinstance(text, dict) else None
        if texts is None:
            if not isinstance(text, str):
                raise TypeError('search() takes the text to search: a str or the context dict')
            texts = {'': text}
        payload = {'texts': {key: ref(value) for key, value in texts.items()}, 'keyword': keyword,
                   'window': window, 'bidirectional': bidirectional}
        envelope = call('search', payload)
        if not envelope['ok']:
            raise ValueError(envelope['error'])
        found = envelope['value']
        if found['fuzzy'] and found['hits']:
            print(f'search({keyword!r}): no exact match; showing approximate matches')
        if isinstance(text, dict):
            return found['hits']
        return found['hits'].get('', [])

    def list_papers(ctx):
        titles = []
        for paper_id, text in _papers(ctx, 'list_papers').items():
            title, body = split_header(text)
            titles.append(title)
            start = ' '.join(body[:400].split())
            start = start if len(start) <= 200 else start[:200] + '...'
            print(f'{paper_id}: {title} ({len(text):,} chars)\n    {start}')
        return titles

    def get_paper_abstract(ctx, paper_id):
        papers = _papers(ctx, 'get_paper_abstract')
        if paper_id not in papers:
            raise PaperNotFoundError(f'get_paper_abstract(): no paper {paper_id!r}; the ids are {list(papers)}')
        title, body = split_header(papers[paper_id])
        return f'{paper_id}: {title}\n\n{body.split(chr(10) * 2, 1)[0].strip()}'

    def extract_section(snippet, start_phrase, end_phrase):
        if not all(isinstance(value, str) for value in (snippet, start_phrase, end_phrase)):
            raise TypeError('extract_section() takes three strings: snippet, start_phrase, end_phrase')
        start_match = re.search(re.escape(start_phrase), snippet, re.IGNORECASE) if start_phrase else None
        start = start_match.start() if start_match else 0
        after = start_match.end() if start_match else 0
        end_match = re.compile(re.escape(end_phrase), re.IGNORECASE).search(snippet, after) if end_phrase else None
        return snippet[start:end_match.end() if end_match else len(snippet)]

    def rlm_query(prompt, context=None):
        if not isinstance(prompt, str):
            raise TypeError('rlm_query() takes the prompt as a str')
        envelope = call('rlm_query', {'prompt': prompt, 'context': to_repl_value(context)})
        if not envelope['ok']:
            raise RlmQueryError(envelope['error'])
        return envelope['value']

    def rlm_query_batched(prompts, context_list=None):
        prompts = _check_prompts(prompts, 'rlm_query_batched')
        if context_list is not None and (not isinstance(context_list, (list, tuple)) or len(context_list) != len(prompts)):
            raise ValueError('rlm_query_batched(): context_list must be None or a list as long as prompts')
        contexts = None if context_list is None else [to_repl_value(c) for c in context_list]
        envelope = call('rlm_query_batched', {'prompts': prompts, 'contexts': contexts})
        if not envelope['ok']:
            return [f"Error: {envelope['error']}"] * len(prompts)
        return envelope['value']

    def llm_query(prompt):
        if not isinstance(prompt, str):
            raise TypeError('llm_query() takes the prompt as a str')
        envelope = call('llm_query', {'prompt': prompt})
        if not envelope['ok']:
            raise LlmQueryError(envelope['error'])
        return envelope['value']

    def llm_query_batched(prompts):
        envelope = call('llm_query_batched', {'prompts': _check_prompts(prompts, 'llm_query_batched')})
        if not envelope['ok']:
            raise LlmQueryError(envelope['error'])
        return envelope['value']

    def FINAL_VAR(name_or_value):
        if isinstance(name_or_value, str):
            name = name_or_value.strip().strip('"\'').strip()
            if name.isidentifier() and name in agent.ns and not name.startswith('_') and name != 'context':
                value = agent.ns[name]
                agent.final = {'value': to_repl_value(value), 'source': 'variable'}
                return value
            hint = '' if name.isidentifier() else ' To answer with text, assign it to a variable first.'
            message = (f'FINAL_VAR({name_or_value!r}): there is no variable named {name!r}, so this is not '
                       f'the end. Assign it first (e.g. {name if name.isidentifier() else "answer"} = [...]) and '
                       f'call FINAL_VAR again, or pass the value itself: FINAL_VAR(my_list).{hint}')
            print(message, file=sys.stderr)
            return message
        agent.final = {'value': to_repl_value(name_or_value), 'source': 'value'}
        return name_or_value

    def FINAL(*args, **kwargs):
        message = ('FINAL(...) is not a function inside code: write FINAL(your answer) as the last line of '
                   'your response, outside the code block, or call FINAL_VAR(variable_or_value) here.')
        print(message, file=sys.stderr)
        return message

    def SHOW_VARS():
        described = [f"{v['name']} ({v['type']})" for v in agent.variables()]
        return 'Variables: ' + ', '.join(described) if described else 'No variables yet: assign some in a code block.'

    return {
        'search': search, 'list_papers': list_papers, 'get_paper_abstract': get_paper_abstract,
        'extract_section': extract_section, 'rlm_query': rlm_query, 'rlm_query_batched': rlm_query_batched,
        'llm_query': llm_query, 'llm_query_batched': llm_query_batched, 'FINAL_VAR': FINAL_VAR,
        'FINAL': FINAL, 'SHOW_VARS': SHOW_VARS,
    }
