/**
 * A five-passage world in our own words (one film, its director, the director's mother, the film's star and his
 * birthplace), shared by the prior-conditioned GNN tests: the question about the director's mother has the
 * director's passage as its bridge.
 */
export const NIGHT_TRAIN_PASSAGES = [
  { id: 'Night Train', title: 'Night Train', text: 'Night Train is a 1959 film directed by Anna Berg. It stars Carl Moss.' },
  { id: 'Anna Berg', title: 'Anna Berg', text: 'Anna Berg was a Swedish director. She was the daughter of Ingrid Berg.' },
  { id: 'Carl Moss', title: 'Carl Moss', text: 'Carl Moss was an actor born in Oslo.' },
  { id: 'Ingrid Berg', title: 'Ingrid Berg', text: 'Ingrid Berg was a painter from Uppsala.' },
  { id: 'Oslo', title: 'Oslo', text: 'Oslo is the capital of Norway.' },
];

export const MOTHER_OF_DIRECTOR_QUESTION = 'Who is the mother of the director of film Night Train?';
