// Where a view stands, kept in its URL's search params: `go` sets some keys and clears others
// (null) in one navigation, keeping the rest.
import { useSearchParams } from 'react-router';

export function useUrlParams() {
  const [params, setParams] = useSearchParams();
  const go = (next: Record<string, string | null>) => {
    const merged = new URLSearchParams(params);
    for (const [key, value] of Object.entries(next)) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    setParams(merged);
  };
  return { params, setParams, go };
}
