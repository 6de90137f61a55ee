// app/papers/map: a paper set's passages placed in 2D by text similarity (TF-IDF or embeddings, then PCA).
export {
  mapPassages,
  mapDenseVectors,
  MAP_METHOD,
  EMBEDDINGS_METHOD,
  PREVIEW_LENGTH,
  type MapMethod,
  type MapPoint,
  type PassageMap,
} from './map.ts';
export { tokenise, tfidfVectors, type SparseVector, type TfIdf } from './tfidf.ts';
