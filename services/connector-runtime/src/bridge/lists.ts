import { bridgeBounds } from './frames';
import { parseInteger } from './numbers';
import { BridgeProtocolError } from './wire';

/**
 * Lists in an answer (docs/terminal-bridge.md, "Lists"): `<name>=<count>`, then each item's fields as
 * `<name>.<index>.<field>=<value>` with index 0..count-1. An EA writes them with a loop and no nesting; a
 * reader finds an item's fields by prefix.
 */

export function encodeList(name: string, items: ReadonlyArray<Iterable<readonly [string, string]>>): Array<[string, string]> {
  if (items.length > bridgeBounds.maxListItems)
    throw new RangeError(`list ${name} holds ${items.length} items, more than ${bridgeBounds.maxListItems}`);
  const fields: Array<[string, string]> = [[name, String(items.length)]];
  items.forEach((item, index) => {
    for (const [key, value] of item) fields.push([`${name}.${index}.${key}`, value]);
  });
  return fields;
}

/** The items of list `name`, each as its own fields; an index outside 0..count-1 or a count past the bound is malformed. */
export function decodeList(fields: Map<string, string>, name: string): Array<Map<string, string>> {
  const countText = fields.get(name);
  if (countText === undefined) throw new BridgeProtocolError('malformed', `list ${name} is missing`);
  const count = parseInteger(countText, name);
  if (count < 0 || count > bridgeBounds.maxListItems)
    throw new BridgeProtocolError('malformed', `list ${name}: ${count} items is outside 0..${bridgeBounds.maxListItems}`);
  const items = Array.from({ length: count }, () => new Map<string, string>());
  const prefix = `${name}.`;
  for (const [key, value] of fields) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    const dot = rest.indexOf('.');
    const indexText = dot < 0 ? rest : rest.slice(0, dot);
    if (!/^(0|[1-9][0-9]{0,5})$/.test(indexText) || dot < 0 || dot === rest.length - 1)
      throw new BridgeProtocolError('malformed', `list ${name}: key ${key} is not ${name}.<index>.<field>`);
    const item = items[Number(indexText)];
    if (!item) throw new BridgeProtocolError('malformed', `list ${name}: index ${indexText} is past its count ${count}`);
    item.set(rest.slice(dot + 1), value);
  }
  return items;
}
