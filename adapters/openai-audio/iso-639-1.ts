// ISO-639-1 language codes (https://www.loc.gov/standards/iso639-2/php/code_list.php), with the
// lower-case English names Whisper reports in verbose_json `language`.

const table =
  'aa:afar ab:abkhazian ae:avestan af:afrikaans ak:akan am:amharic an:aragonese ar:arabic as:assamese av:avaric ' +
  'ay:aymara az:azerbaijani ba:bashkir be:belarusian bg:bulgarian bi:bislama bm:bambara bn:bengali bo:tibetan ' +
  'br:breton bs:bosnian ca:catalan ce:chechen ch:chamorro co:corsican cr:cree cs:czech cu:church_slavic ' +
  'cv:chuvash cy:welsh da:danish de:german dv:divehi dz:dzongkha ee:ewe el:greek en:english eo:esperanto ' +
  'es:spanish et:estonian eu:basque fa:persian ff:fulah fi:finnish fj:fijian fo:faroese fr:french ' +
  'fy:western_frisian ga:irish gd:gaelic gl:galician gn:guarani gu:gujarati gv:manx ha:hausa he:hebrew ' +
  'hi:hindi ho:hiri_motu hr:croatian ht:haitian hu:hungarian hy:armenian hz:herero ia:interlingua ' +
  'id:indonesian ie:interlingue ig:igbo ii:sichuan_yi ik:inupiaq io:ido is:icelandic it:italian iu:inuktitut ' +
  'ja:japanese jv:javanese ka:georgian kg:kongo ki:kikuyu kj:kuanyama kk:kazakh kl:kalaallisut km:khmer ' +
  'kn:kannada ko:korean kr:kanuri ks:kashmiri ku:kurdish kv:komi kw:cornish ky:kirghiz la:latin ' +
  'lb:luxembourgish lg:ganda li:limburgan ln:lingala lo:lao lt:lithuanian lu:luba-katanga lv:latvian ' +
  'mg:malagasy mh:marshallese mi:maori mk:macedonian ml:malayalam mn:mongolian mr:marathi ms:malay mt:maltese ' +
  'my:burmese na:nauru nb:norwegian_bokmal nd:north_ndebele ne:nepali ng:ndonga nl:dutch nn:norwegian_nynorsk ' +
  'no:norwegian nr:south_ndebele nv:navajo ny:chichewa oc:occitan oj:ojibwa om:oromo or:oriya os:ossetian ' +
  'pa:punjabi pi:pali pl:polish ps:pashto pt:portuguese qu:quechua rm:romansh rn:rundi ro:romanian ru:russian ' +
  'rw:kinyarwanda sa:sanskrit sc:sardinian sd:sindhi se:northern_sami sg:sango si:sinhala sk:slovak ' +
  'sl:slovenian sm:samoan sn:shona so:somali sq:albanian sr:serbian ss:swati st:southern_sotho su:sundanese ' +
  'sv:swedish sw:swahili ta:tamil te:telugu tg:tajik th:thai ti:tigrinya tk:turkmen tl:tagalog tn:tswana ' +
  'to:tonga tr:turkish ts:tsonga tt:tatar tw:twi ty:tahitian ug:uighur uk:ukrainian ur:urdu uz:uzbek ' +
  've:venda vi:vietnamese vo:volapuk wa:walloon wo:wolof xh:xhosa yi:yiddish yo:yoruba za:zhuang zh:chinese zu:zulu';

const names = new Map(
  table.split(' ').map((pair) => {
    const [code, name] = pair.split(':');
    return [code, name.replace(/_/g, ' ')] as const;
  }),
);

/** The language's lower-case English name for an ISO-639-1 code, or undefined for a non-code. */
export function languageName(code: string): string | undefined {
  return names.get(code.toLowerCase());
}
