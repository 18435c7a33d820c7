/**
 * A map from keys to values made on first use, bounded: cleared when it holds `max` entries, so a
 * long-running process never grows it without bound. For immutable values that recur (decimals
 * parsed from the same text, the text of the same time): each is made once while it is kept.
 */
export function boundedCache<K, V>(max: number): (key: K, make: (key: K) => V) => V {
  const values = new Map<K, V>();
  return (key, make) => {
    let value = values.get(key);
    if (value === undefined) {
      value = make(key);
      if (values.size >= max) values.clear();
      values.set(key, value);
    }
    return value;
  };
}
