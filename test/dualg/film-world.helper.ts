/**
 * An invented world in our own words (films, their directors and cast, where those were born), shared by
 * the tests of generated GNN training questions: its passages give 2- and 3-hop chains and comparison pairs.
 */
export const FILM_PASSAGES = [
  { id: 'p1', title: 'The Copper Lantern', text: 'The Copper Lantern is a 1961 drama film directed by Mirela Oskarsdottir. It stars Tomas Vinter.' },
  { id: 'p2', title: 'Harbour of Ash', text: 'Harbour of Ash is a 1964 thriller film directed by Bruno Tallis. It stars Ilse Marrow.' },
  { id: 'p3', title: 'Mirela Oskarsdottir', text: 'Mirela Oskarsdottir was a film director born in Velmora. Her husband was Tomas Vinter.' },
  { id: 'p4', title: 'Bruno Tallis', text: 'Bruno Tallis was a film director born in Castrane. He studied in Velmora.' },
  { id: 'p5', title: 'Velmora', text: 'Velmora is a river town located in Ostrland.' },
  { id: 'p6', title: 'Castrane', text: 'Castrane is a port city located in Ostrland.' },
  { id: 'p7', title: 'Tomas Vinter', text: 'Tomas Vinter was an actor born in Castrane.' },
  { id: 'p8', title: 'Ilse Marrow', text: 'Ilse Marrow was an actress born in Velmora.' },
  { id: 'p9', title: 'Ostrland', text: 'Ostrland is a small country whose capital is Castrane.' },
];
