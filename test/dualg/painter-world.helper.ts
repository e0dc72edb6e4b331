/**
 * An invented corpus in our own words (two Dutch artists, their works and cities) in the text benchmarks' format,
 * shared by the tests that run DualG on a corpus it has never seen: its questions are 2-hop bridges.
 */
export const PAINTER_PASSAGES = [
  { title: 'Marta Velden', text: 'Marta Velden was a Dutch painter born in Utrecht in 1871. She married the composer Joris Amsel.' },
  { title: 'Joris Amsel', text: 'Joris Amsel was a composer. Joris Amsel died in Leiden in 1930.' },
  { title: 'The Harbour at Dusk', text: 'The Harbour at Dusk is an 1899 painting by Marta Velden, kept in the Rijksmuseum.' },
  { title: 'Utrecht', text: 'Utrecht is a city in the Netherlands on the Vecht river.' },
  { title: 'Leiden', text: 'Leiden is a university city in South Holland.' },
  { title: 'Kees Brom', text: 'Kees Brom was a sculptor from Groningen who worked in stone.' },
  { title: 'Silent Canal', text: 'Silent Canal is a 1923 sculpture by Kees Brom.' },
  { title: 'Groningen', text: 'Groningen is the largest city in the north of the Netherlands.' },
];

export const PAINTER_QUESTIONS = [
  { question: 'Where did the husband of Marta Velden die?', gold_titles: ['Marta Velden', 'Joris Amsel'] },
  { question: 'Where was the painter of The Harbour at Dusk born?', gold_titles: ['The Harbour at Dusk', 'Marta Velden'] },
  { question: 'Which city is the sculptor of Silent Canal from?', gold_titles: ['Silent Canal', 'Kees Brom'] },
];
