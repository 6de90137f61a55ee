// app/papers/map: a paper set's passages placed in 2D by text similarity (TF-IDF + PCA).
export { mapPassages, MAP_METHOD, PREVIEW_LENGTH, type MapPoint, type PassageMap } from './map.ts';
export { tokenise, tfidfVectors, type SparseVector, type TfIdf } from './tfidf.ts';
