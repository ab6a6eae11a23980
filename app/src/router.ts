/** Hash routes (`#/documents/doc_…`): the server serves one page, the fragment picks the view. */
import { useEffect, useState } from 'preact/hooks';

export interface Route { page: string; id?: string; query: URLSearchParams }

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const [page = '', id] = path.split('/').map(decodeURIComponent);
  return { page: page || 'documents', ...(id ? { id } : {}), query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const navigate = (hash: string) => { location.hash = hash; };
