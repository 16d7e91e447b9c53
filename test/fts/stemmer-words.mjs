// Word lists of test/fts/stemmer-reference.mjs, per language: `real` holds inflected words (one
// string, white-space separated); `generated` holds [stems, suffixes] pairs whose every
// combination is added ("-" is the empty affix; a triple adds prefixes), built from the suffix lists of the Snowball
// description of the language so that each rule fires.
export const LANGUAGES = {
  arabic: {
    real: `الكتاب كتاب كتب الكتب بالكتاب وبالكتاب فالكتاب كالكتاب للكتاب مكتبة المكتبة مكتبات
      مدرسة المدرسة مدارس مدرستي مدرستنا مدرستهم معلم المعلم معلمون المعلمون معلمين المعلمين
      معلمة المعلمات طالب الطالب طلاب الطالبة الطالبات لاعبون اللاعبين سيارة السيارات سياراتهم
      يكتب يكتبون تكتبين نكتب أكتب سيكتب سيكتبون ستكتب سنكتب سأكتب كتبت كتبنا كتبتم كتبتما كتبوا
      يستخدم نستخدم تستخدم استخدم استخدام الاستخدام يستعمل استقبال الاستقبال مستشفى المستشفى
      قال قالوا يقول يقولون فقال وقال قالت عربي العربي العربية عربية العرب بالعربية والعربية
      أأكل أآمن أؤمن أأنت أإله مسؤول المسؤولون سماء السماء شيء أشياء بيئة البيئة ماء إنشاء
      مُعَلِّمٌ كِتَابٌ الْكِتَابُ مكـــتب كتــاب ٢٠٢٠ ١٢٣ رقم٥ ﻛﺘﺎﺏ ﺍﻟﻜﺘﺎﺏ ﻻ ﻷن ﻹسلام ﻵخر سلام
      السلام الإسلام إسلامي الإسلامية مصطفى موسى عيسى هدى بنى مبنى المبنى ذكرى فتاوى
      ببيت بالبيت ككتاب كبير الكبير كبيرة كبار بيت بيوت بيته بيتها بيتهم بيتكم بيتكما بيتهما بيتنا
      بيتي بيتك علمهما علمكما علمتما حكومة الحكومة الحكومات حكومي الحكومية حكوميون فلسطين فلسطيني
      الفلسطينيون الفلسطينيين لبنان اللبناني ولبنان فيلم أفلام الأفلام وزير الوزير وزراء الوزراء
      جميل جميلة الجميلة جميلات يذهب ذهب ذهبوا يذهبان تذهبان يذهبون ذهبتم ذهبتن ذهبنا
      اجتمع الاجتماع اجتماعات اجتماعي الاجتماعية انتخابات الانتخابات مستقبل المستقبل مستقبلهم
      فا وا فو بل كل لل ال بال كال ك ب و ف ن ي ت ا ه
      study studying études`,
    generated: [
      [
        `كتاب مدرس معلم لاعب مهندس مسلم عامل صديق رئيس حزب وزير فلاح عربي علم جميل كبير
         الكتاب المدرس المعلم اللاعب المهندس المسلم العامل بالكتاب بالمعلم كالمعلم للمعلم
         والمعلم فالمعلم ومعلم فمعلم وكتاب بمعلم ككتاب بكتاب ببيت ككلام`,
        `- ة ات ون ين ان ي ه ها هم هما كم كما نا ك تم تما وا ت ن ا و ى تي تك ته تها تهم تنا
         اتي اته اتها اتهم ونا يه يها يهم`,
      ],
      [
        `يكتب تكتب نكتب أكتب سيكتب ستكتب سنكتب سأكتب كتب درس يدرس تدرس ندرس سيدرس
         يستخدم تستخدم نستخدم استخدم يذهب ذهب فذهب وذهب يقرأ قرأ`,
        `- ه ك ني نا ها هم هن كم كن هما كما كمو ت ا ن ي تا تن ان ون ين تما وا تم و تمو
         وه وها ونه ونها تموه`,
      ],
    ],
  },
  german: {
    real: `häuser haus hauses häusern kinder kindern kindes straße strassen straßen fließen
      aufeinanderfolgenden aufeinanderfolgender abenteuerlich abenteuerlichen abgeschlossenheit
      kenntnisse kenntnissen erkenntnis ergebnisse ergebnissen zeugnisse bedürfnisse system
      systemen systeme lehrerin lehrerinnen lehrer lehrern schön schöner schönste schönsten
      schönheit freundlich freundlichkeit freundlichen möglichkeit möglichkeiten wichtigkeit
      ewigkeit heiligkeit bearbeitung bearbeitungen zeitung zeitungen hoffnung hoffnungen
      lesend lesende spielend entscheidung erledigung beleidigung beleidigend ausländisch
      ausländische politisch politik physik mathematik technik technisch laufen läuft lief
      gelaufen gehst gehest bist hast liest fährst kommst sagst machst lebst bleibst liebst
      bauen bayern kaufen frauen feuer steuer treue neue abenteuer mauer bauer auen aue
      quelle qualität äußerst äußerlich größe größer größten fuß füße fußball weiß weißen
      bärenstark überall übergeben übersetzungen ältesten erstens letztens frühstück
      ärzte bäume bücher büchern männer männern wälder wäldern ehrlichkeit dankbarkeit
      aufnahme aufgaben arbeitest arbeitet arbeiten arbeiter arbeitern arbeitens gearbeitet
      kleinste kleinsten kleinstes billigste herrlich herrlichkeit ordentlich wirklich
      kirchliche kirchlichen wissenschaftlich wissenschaftlichen gesellschaftlicher
      gesundheit krankheit krankheiten einheit einheitlich sicherheit sicherheiten
      lehrerlich geistlich männlichkeit menschlich menschlichkeit eigentum eigenständig
      mündig mündigen zwanzigste richtig richtiger richtigkeit einig einigung einigungen
      ledig ledigkeit tätig tätigkeit tätigkeiten gierig gieriger königreich königlich
      fröhlich fröhlichkeit ärgerlich ärgerlichkeit lächerlichkeit wissend wissender
      aa ab abc hoch höchst auf aus er es ist sie wir ihr ein eine einem einen einer eines
      gibst gibt gabst gehst steht stehst erst ernst kunst kunststoff dienst dienste`,
    generated: [
      [
        `haus kind lehr spiel arbeit mensch wort frau tag lieb klein schnell freund gross
         schön wichtig möglich heilig ewig zeit bau kauf zeug fang wunsch buch läuf
         kenntnis ergebnis wiss arb arbeitsam bedeut entscheid les spielend`,
        `- e em en er ern es s est st end ung ig ik isch lich heit keit igkeit lichkeit
         erlich enlich erheit enheit endig ungig eig ungen ende endem enden ender endes
         ischen ische ischer lichen licher liches lichem heiten keiten igen iger iges igem
         ungs isse issen nisse nissen ens erst erns elt elst eln ets`,
      ],
      [`ab abt kabel arb gut hund bild held lamm sohn brot korb`, `s st est es`],
    ],
  },
  spanish: {
    real: `casa casas perro perros niña niños hablar hablando hablaba hablábamos hablaremos
      hablaría hablaron hablado habladas comer comiendo comía comeríamos comido comieron vivir
      viviendo vivía viviríamos vivido vivieron dámelo dígamelo diciéndole haciéndolo
      comiéndoselo levantarse levantándose sentarnos bañarse vámonos dándoles poniéndola
      cayendo oyendo leyendo huyendo construyendo huyó huyeron construya construyan construyo
      argumento argumentos nacionalidad nacionalidades posibilidad posibilidades actividad
      actividades rápidamente felizmente lentamente claramente notablemente activamente
      creativamente curiosamente lógicamente lógica lógicas biología biologías solución
      soluciones revolución revoluciones presencia presencias ciencia ciencias paciencia
      bailarina bailarinas organización organizaciones organizador organizadora habilidad
      habilidades abundancia abundancias comunismo comunista comunistas peligroso peligrosa
      peligrosos peligrosas movimiento movimientos crecimiento crecimientos interesante
      interesantes importante importancia creativo creativa creativos creativas
      alimentación alimentaciones aplicaciones aplicación responsabilidad responsable
      responsables posible posibles comestible comestibles tristeza amistad ciudad ciudades
      averigüe averigüé averiguar averiguó sigue siguen sigues persiguen distinguen llegué
      llegue pagué pague tengo tienes tiene tenemos tenéis tienen estoy estás está estamos
      están siendo sido fue fueron era éramos árbol árboles lápiz lápices camión camiones
      corazón corazones canción canciones acción acciones razón razones nación naciones
      andaluz andaluces ácido único única últimos éxito así aquí allí también después
      yo ya ye más mamá papá sofá menú bambú`,
    generated: [
      [
        `habl com viv tom beb escrib trabaj estudi cant corr abr compr vend part gan cre lleg
         pag segu constru hu o le argu averigu distingu`,
        `- o a os as e es en emos éis a an ar er ir ando iendo yendo ado ido ada ida ados idos
         adas idas aba abas ábamos abais aban ía ías íamos íais ían ara aras áramos arais aran
         iera ieras iéramos ierais ieran ase ases ásemos aseis asen iese ieses iésemos ieseis
         iesen aste iste asteis isteis aron ieron ió é í ó ará arás aremos aréis arán ería
         erías eríamos eríais erían iré irá iremos iréis irán aría arías aríamos aríais arían
         ad ed id amos imos ís áis ya ye yan yen yeron yendo yo yó yas yes yais yamos
         arme arte arse arlo arla arlos arlas arle arles arnos árselo ándome ándose ándola
         iéndolo iéndoselo ándoselas érmelo írselo ándonos iéndoles yéndose yendola`,
      ],
      [
        `nacion real posib activ creat curi lóg natur form inform organ import dec constr
         abund comun pelig mov crec interes`,
        `- anza anzas ico ica icos icas ismo ismos able ables ible ibles ista istas oso osa osos
         osas amiento amientos imiento imientos adora ador ación adoras adores aciones ante
         antes ancia ancias icador icación icante icancia logía logías ución uciones encia
         encias amente ivamente ativamente osamente icamente adamente mente antemente
         ablemente iblemente idad idades abilidad icidad ividad iva ivo ivas ivos ativa ativo`,
      ],
    ],
  },
  italian: {
    real: `casa case cane cani libro libri parlare parlando parlava parlavamo parleremo
      parlerebbe parlarono parlato parlata mangiare mangiando mangiava mangeremo mangiato
      dormire dormendo dormiva dormiremo dormito finisco finisci finisce finiscono finisca
      dammelo dicendogli facendolo mangiandola portarlo vederla sentirsi alzarsi alzandosi
      parlargli prenderne mettervi andarsene dandogliela cercandoli trovarci
      nazionalità nazionalità possibilità attività velocità felicità rapidamente lentamente
      chiaramente probabilmente attivamente creativamente curiosamente logicamente
      biologia biologie soluzione soluzioni rivoluzione rivoluzioni conclusione conclusioni
      presenza presenze scienza scienze pazienza organizzazione organizzazioni organizzatore
      organizzatrice abilità abbondanza comunismo comunista comunisti pericoloso pericolosa
      pericolosi pericolose movimento movimenti cambiamento cambiamenti interessante
      interessanti importante importanza creativo creativa creativi creative applicazione
      applicazioni responsabile responsabili possibile possibili tristezza amicizia città
      amiche amici banche banca luoghi luogo lunghi lungo buio gioia aiuola quando quindi
      questo questi qualità acqua aquile tuoi suoi miei noia guaio maiale ghiaccio chiesa
      perché però così già più può università caffè tè sì è è à ò ù é ó`,
    generated: [
      [
        `parl mangi dorm fin cred vend prend sent cant torn lav cerc pag port guard vol cap
         fugg ved dic`,
        `- o i a e iamo ate ano ono are ere ire ando endo ato ata ati ate ito ita iti ite uto uta uti ute
         ava avi avamo avate avano eva evi evamo evate evano iva ivi ivamo ivate ivano ai ammo
         aste arono emmo este erono immo iste irono erò erai erà eremo erete eranno irò irai irà
         iremo irete iranno erei eresti erebbe eremmo ereste erebbero irei iresti irebbe
         iremmo ireste irebbero assi asse assimo assero essi esse essimo essero issi isse
         issimo issero isco isci isce iscono isca iscano ar ir enda ende endi
         arlo arla arli arle argli arne arsi arti armi arci arvi arsene argliela armelo
         andolo andola andogli endoci endosene erlo erla irlo irsi`,
      ],
      [
        `nazion real possib attiv creat curi log natur form inform organ import dec costr
         abbond comun pericol mov cresc interess`,
        `- anza anze ico ici ica ice iche ichi ismo ismi abile abili ibile ibili ista iste isti
         istà istè istì oso osi osa ose mente atrice atrici ante anti azione azioni atore atori
         icazione icatore logia logie uzione uzioni usione usioni enza enze amento amenti
         imento imenti amente ivamente ativamente osamente icamente abilmente ità abilità icità
         ività ivo ivi iva ive ativo ativa icativo icativi`,
      ],
    ],
  },
  portuguese: {
    real: `casa casas cão cães pão pães mão mãos coração corações nação nações
      informação informações organização organizações revolução revoluções solução soluções
      falar falando falava falávamos falaremos falaria falaram falado faladas comer comendo
      comia comeríamos comido comeram viver vivendo vivia viveríamos vivido viveram
      nacionalidade nacionalidades possibilidade possibilidades atividade atividades
      rapidamente felizmente lentamente claramente notavelmente ativamente criativamente
      curiosamente logicamente biologia biologias presença ciência ciências paciência
      abundância comunismo comunista comunistas perigoso perigosa perigosos perigosas movimento
      movimentos crescimento crescimentos interessante interessantes importante importância
      criativo criativa criativos criativas responsável possível impossível amável beleza
      belezas tristeza amizade cidade cidades brasileira brasileiras cadeira cadeiras
      carpinteira lavadeira estrangeira ensinaria ensinariam conheceram averigúe seguem
      persegue distingue consegue alegue aquele aqueles ficção ação ações bênção órgão
      órfã irmã irmãs maçã avó avô você vocês também português portugueses inglês inglesa
      francês francesa atrás café pé fé lá cá só já até então não são estão`,
    generated: [
      [
        `fal com viv tom beb escrev trabalh estud cant corr abr compr vend part ganh
         cheg pag segu ensin aprend conhec`,
        `- o a os as e es em emos eis ais am ar er ir ando endo indo ado ido ada ida ados idos
         adas idas ava avas ávamos áveis avam ia ias íamos íeis iam ara aras áramos áreis aram
         era eras éramos éreis eram ira iras íramos íreis iram asse asses ássemos ásseis assem
         esse esses êssemos ésseis essem isse isses íssemos ísseis issem aste este iste astes
         estes istes ei eu iu ou arei arás ará aremos areis arão erei erás erá eremos ereis
         erão irei irás irá iremos ireis irão aria arias aríamos aríeis ariam eria erias
         eríamos eríeis eriam iria irias iríamos iríeis iriam armos ermos irmos ardes erdes
         irdes ares eres ires amos imos ámos is ci cie ciei ce gue gues ç`,
      ],
      [
        `nacion real possib ativ criat curi lóg natur form inform organ import dec constr
         abund comun perig mov cresc interess belez brasil`,
        `- eza ezas ico ica icos icas ismo ismos ável ível ista istas oso osa osos osas amento
         amentos imento imentos adora ador ação adoras adores ações ante antes ância icação
         icante logia logias ução uções ência ências amente ivamente ativamente osamente
         icamente adamente mente antemente avelmente ivelmente idade idades abilidade icidade
         ividade iva ivo ivas ivos ativa ativo eira eiras ira iras`,
      ],
    ],
  },
  dutch: {
    real: `huis huizen huisje kinderen kind boeken boek mogelijkheden mogelijkheid
      gelukkig gelukkige gelukkiger vrijheid vrijheden waarheid waarheden lopen loopt liep
      gelopen lopend lopende werken werkt werkte werkten gewerkt werkend werkende werking
      werkingen maan manen brood broden boom bomen straat straten groot grote groter grootste
      vrienden vriendelijk vriendelijke vriendelijkheid mogelijk mogelijke eerlijk eerlijke
      heerlijk heerlijke duidelijk duidelijke eetbaar eetbare draagbaar draagbare houdbaar
      zichtbaar zichtbare lesbare koningin koninginnen koning koningen lezing lezingen
      vergadering vergaderingen regering regeringen opleiding opleidingen ontwikkeling
      heidens heiden heidenen zijden bijen rijen gemeente gemeenten lichamen geheimen
      ademen nemen komen genomen gekomen bakken bakker bakkers zakken katten kat
      bedden bed fietsen fiets auto autos auto's radio's meisje meisjes vaders moeders
      ideeën ideeen geëist geëindigd café cafés paraplu's zeeën knieën koeien haaien
      mooie mooi nieuw nieuwe blauw blauwe yoghurt yacht jaar jaren huurder huurders
      baby baby's coyote royaal loyaal kooien plooien tuinieren duidelijkheid zachtheid
      achtbaar achtbaarheid lijden lijdend vliegen vliegend vliegende eindigen eindigend
      lichtheid kinderlijk kinderlijke beslissing beslissingen betekenis betekenissen
      aa ab abc en een ene de het is zijn was waren ja nee`,
    generated: [
      [
        `werk loop lop maak bak leer speel speL kook koop denk hou zeg wacht vraag huis
         boek kind vriend mens land groot klein mogelijk vrij waar licht eer zicht draag
         lees eet vergader regeer geheim`,
        `- en ene s se e heden heid heidje end ing ig lijk baar bar ende ingen igen ige
         lijke lijker baarheid bare barheid heidens igheid ingheid endheid lijkheid enheid
         ers ster sters je jes tje tjes ten tend ten dde dden kken tten`,
      ],
      [`gem ge b br st str`, `en een ene ende ing igen`],
    ],
  },
  swedish: {
    real: `huset husen huset hus husets flickan flickor flickorna pojkar pojkarna pojkarnas
      bilen bilar bilarna bilens bilarnas staden städer städerna kvinnan kvinnor kvinnorna
      kvinnornas katten katter katterna hunden hundar hundarna hundens barnen barnens
      boken böcker böckerna springa springer sprang sprungit springande springandet
      arbeta arbetar arbetade arbetat arbetande arbetet arbetena friheten friheter
      frihetens lycklig lyckliga lyckligt lycklighet vänlig vänliga vänligen möjlig möjliga
      möjligheten möjligheter skriva skriver skrev skrivit skrivande fullt fullständigt
      löst lösa löser upplöst kommit kommer komma gått gick gamla gammal gammalt
      stora större störst största vackert vackraste snabbt glädje glädjen mänskliga
      kärleken kärlek himlen himmel klokast klokaste snällast rätt rätta stadd ledd
      bredd hågad hängd tänkt spänd känd tvätt hatt mätt sett gått skänkt ängslig
      ängslighet enighet enhet enheter ensam ensamhet ö å ja nej och att det en ett`,
    generated: [
      [
        `hus bil flick pojk kvinn katt hund bok stad arbet spring skriv lyck vän möj fri
         kärlek händ tänk spel läs sjung`,
        `- a arna erna heterna orna ad e ade ande arne are aste en anden aren heten ern ar er
         heter or as arnas ernas ornas es ades andes ens arens hetens erns at andet het ast s
         lig ig els löst fullt ligt iga igt ligare ligast ligen ligheten dd gd nn dt gt kt tt
         dde nne tte ddes`,
      ],
    ],
  },
  norwegian: {
    real: `huset husene hus husets jenta jenter jentene gutter guttene guttenes bilen biler
      bilene bilens byen byer byene kvinnen kvinner kvinnene katten katter kattene hunden
      hunder hundene boken bøker bøkene løpe løper løp løpt løpende arbeide arbeider
      arbeidet arbeidende friheten friheter frihetens lykkelig lykkelige lykkelighet
      vennlig vennlige vennligst mulig mulige muligheten muligheter skrive skriver skrev
      skrevet skrivende kjærlighet kjærligheten himmelen himler klokest klokeste rett rette
      kjørte kjørt hørte hørt lærte lært rekke rekkes sekk sekks ekte bilers kakes
      lovlig lovlige beslutning fjell fjellet stort store større størst bakst heks
      ja nei og at det en et å ø æ`,
    generated: [
      [
        `hus bil jent gutt kvinn katt hund bok by arbeid løp skriv lykk venn mul fri
         kjærlig hend tenk spill les syng`,
        `- a e ede ande ende ane ene hetene en heten ar er heter as es edes endes enes
         hetenes ens hetens ers ets et het ast s erte ert leg eleg ig eig lig elig els lov
         elov slov hetslov dt vt ks kes lige ligst`,
      ],
    ],
  },
  danish: {
    real: `huset husene hus husets pigen piger pigerne drengene drenge drengenes bilen
      biler bilerne bilens byen byer byerne kvinden kvinder kvinderne katten katte kattene
      hunden hunde hundene bogen bøger bøgerne løbe løber løb løbet løbende arbejde
      arbejder arbejdet arbejdede arbejdende friheden friheder frihedens lykkelig lykkelige
      lykkelighed venlig venlige venligst mulig mulige muligheden muligheder skrive skriver
      skrev skrevet skrivende kærlighed kærligheden himlen himmel klogest klogeste ret rette
      bestemmelse bestemmelser bestemmelserne indtil underlig underligste højest hurtigst
      vigtigst vigtigste løst løse opløst fuldt fuld spændt kendt lagt bygd lykkedes
      ja nej og at det en et å ø æ`,
    generated: [
      [
        `hus bil pig dreng kvind kat hund bog by arbejd løb skriv lykk venn mul fri kær
         hend tænk spil læs syng bestemm`,
        `- hed ethed ered e erede ende erende ene erne ere en heden eren er heder erer heds
         es endes erendes enes ernes eres ens hedens erens ers ets erets et eret s ig lig
         elig els løst igst ligst eligst gd dt gt kt ligt elsen else elser`,
      ],
    ],
  },
  finnish: {
    real: `talo talon taloa talossa talosta taloon talolla talolta talolle talona taloksi
      talot talojen taloja taloissa taloista taloihin taloilla taloilta taloille taloina
      taloiksi taloineen talossani talossasi talossamme talossanne talossansa taloansa
      kaupunki kaupungin kaupunkia kaupungissa kaupungeissa kaupunkien kaupunkeja kaupunkiin
      kaupunkeihin maa maan maata maassa maahan maiden maita maihin maissa tie tien tietä
      teiden teitä teihin huone huoneen huonetta huoneessa huoneeseen huoneet huoneita
      huoneiden kirja kirjan kirjaa kirjassa kirjaan kirjat kirjoja kirjoissa kirjojen
      kirjoihin kirjakin kirjakaan kirjako kirjahan kirjapa kissa kissan kissaa kissoja
      kissojen kissoissa nopeasti hitaasti kauniisti iloisesti parempi parempaa paremmat
      paremman pienempi pienimmät pienimpiä suurin suurimmat suurimman lumpi lumpeen
      kauneimmat kauniimmat kauneimpien syömme syötte syövät syön syöt syö mennään menen
      menet menee menemme menette menevät tulimme tulitte tulivat tulin tulit tuli tullut
      kirjoittaa kirjoittaja kirjoittajat kirjoittajien kirjoitus kirjoitukset eläke eläkkeen
      eläkkeellä aatonaatto aatonaaton matto maton mattoa tyttö tytön tyttöä tyttöjä
      poika pojan poikaa poikia poikien pojat ystävä ystävän ystävää ystävät ystäviä
      ystävieni ystävilleni kädessäni kädessäsi kädessään käteni kätesi kätensä
      kesä kesän kesää kesällä kesäksi kesät kesiä yö yön yötä öisin öinen
      juosta juoksen juoksi juossut juokseminen ja ei on oli olla ole o ä`,
    generated: [
      [
        `talo kirja kissa maa tie pöytä kylä auto katu koulu ystävä lintu metsä järvi
         kaupunki huone tyttö poika`,
        `- n a ä ta tä tta ttä ssa ssä sta stä lla llä lta ltä lle ksi ine na nä han hen hin
         hon hän hön siin seen den tten t t ja jä ja i in jen iden ien ihin issa issä ista
         illa ille ilta iksi ina ineen ni si nsa nsä mme nne an än en kin kaan kään ko kö pa
         pä sti mpi mpa mpä mmi mma mmä impi impa impä immi imma immä eja ejä immat mmat
         ssani ssasi ssamme ssanne nsakin llekin stakaan kseni kseen ani asi
         ohon ahan ehen ihin ähän öhön uhun isiin iseen eseen aseen oseen iden itten oiden
         ehan ohen ahin ihon öhän ähön`,
      ],
    ],
  },
  romanian: {
    real: `casa casă case casele caselor casei omul omului oameni oamenilor copil copilul
      copii copiii copiilor frumos frumoasă frumoase frumoşi frumuseţe frumuseţea
      naţiune naţiunea naţiuni naţional naţionale naţionalitate naţionalităţi lucrare
      lucrarea lucrări lucrările lucra lucrez lucrezi lucrează lucrăm lucraţi lucrează
      lucram lucrai lucrase lucraserăm lucrând lucrat lucrată lucraţi lucratori lucrător
      lucrătoare posibil posibilă posibile posibilitate posibilităţi activitate activităţi
      activ activă active activi relativ relativă creativitate creativităţi logic logică
      logice logici socialism socialist socialista socialiştii turist turişti turista
      informaţie informaţia informaţii organizaţie organizaţia organizaţii citesc citeşti
      citeşte citim citiţi citeau citind citit citită citire vorbesc vorbeşti vorbeşte
      vorbim vorbiţi vorbeau vorbind vorbit vorbire vorbitor vorbitoare ţară ţări ţara
      ţărilor şcoală şcoli şcoala şcolile şcolilor românesc românească româneşti România
      românii românilor ideea ideile ideilor abilitate abilităţi capabil capabilă
      instituţie instituţii constituţional agenţie agenţii stea stele stelelor
      a e i o u ă î â şi şa ţi ţie instituții națiune țară școală românești`,
    generated: [
      [
        `lucr vorb cit scri mânc cânt învăţ pleac ajung frumos naţion posib activ
         relat creat organiz inform institu`,
        `- ul ului aua ea ele elor ii iua iei iile iilor ilor ile atei aţie aţia abilitate
         abilitati abilităi abilităţi ibilitate ivitate ivitati ivităi ivităţi icitate
         icitati icităi icităţi icator icatori iciv iciva icive icivi icivă ical icala icale
         icali icală ativ ativa ative ativi ativă aţiune atoare ator atori ătoare ător ători
         itiv itiva itive itivi itivă iţiune itoare itor itori at ata ată ati ate ut uta ută
         uti ute it ita ită iti ite ic ica ice ici ică abil abila abile abili abilă ibil ibila
         ibile ibili ibilă oasa oasă oase os osi oşi ant anta ante anti antă itate itati ităi
         ităţi iv iva ive ivi ivă ţiune ţiuni iune iuni ism isme ist ista iste isti istă işti
         are ere ire âre ind ând indu ându eze ească ez ezi ează esc eşti eşte ăsc ăşti ăşte
         am ai au eam eai ea eaţi eau iam iai ia iaţi iau ui aşi arăm arăţi ară uşi urăm
         urăţi ură işi irăm irăţi iră âi âşi ârăm ârăţi âră asem aseşi ase aserăm aserăţi
         aseră isem iseşi ise iserăm iserăţi iseră âsem âseşi âse âserăm âserăţi âseră usem
         useşi use userăm userăţi useră ăm aţi em eţi im iţi âm âţi seşi serăm serăţi seră sei
         se sesem seseşi sese seserăm seserăţi seseră a e i ie ă`,
      ],
    ],
  },
  hungarian: {
    real: `ház házak házban házból házba házhoz háznál háztól házon házra házról házzal
      házért házként házig házul házam házad háza házunk házatok házuk házaim házaid házai
      házaink házaitok házaik házé házaké kert kertek kertben kertből kertbe kerthez
      kertnél kerttől kerten kertre kertről kerttel kertért kertem kerted kertje kertünk
      kertetek kertjük kertjeim kertjei kerteké kertjéé asztal asztalok asztalon asztalra
      asztallal asztalhoz könyv könyvek könyvben könyvvel könyvről könyveim könyvei
      város városok városban városba városból várossal városért városként emberek ember
      emberrel emberhez embernek emberé emberek emberekkel kézzel kéz kezek kezem lánnyal
      lány lányok lánya anyja anyával apja apjával almát almák almával almája almái
      fiú fiúk fiúval fiúnak kutya kutyák kutyával kutyája kutyáink kutyáitok kutyáik
      víz vízzel vizet vizek szoba szobában szobák szobája szobáé egy kettő három
      magyarul angolul németül gyorsan szépen jól rosszul naponként hetenként egyenként
      ostul családostul feleségestül gyerekestül tárgyastul mindenkor éjfélkor
      asszonnyá asszony hosszú hosszabb legszebb szebb nagyobb
      a e i o u á é ö ő ü ű ó ú aa ee ai öö eu acstul ecstül aszstul osztul ecsset`,
    generated: [
      [
        `ház kert asztal könyv város ember lány alma kutya szoba ablak kenyér tanár
         barát gyerek levél család kocsi madár ajtó`,
        `- ban ben ba be ra re nak nek val vel tól től ról ről ból ből hoz hez höz nál nél ig
         at et ot öt ért képp képpen kor ul ül vá vé onként enként anként ként en on an ön n
         t án én ánként astul estül stul stül ástul éstül ák ék ök ak ok ek k oké öké aké eké
         éké áké ké éei ééi áéi éi éé é ünk unk ánk énk nk ájuk éjük juk jük uk ük em om am ám ém
         m od ed ad öd ád éd d ja je a e o á jaim jeim áim éim aim eim im jaid jeid áid éid
         aid eid id jai jei ái ai ei i jaink jeink eink aink áink éink ink jaitok jeitek aitok
         eitek áitok éitek itek jeik jaik aik eik áik éik ik`,
      ],
      [`kézz ott hall ottt app tett hegy essz hoss higgy meny ggy ccs`, `al el á é`],
      [`ács ecset uszoda edzés ing ügy anya ígéret ősz ólom`, `- ban ról nak al unk ként`],
    ],
  },
  catalan: {
    real: `casa cases gos gossos nen nena nens nenes parlar parlant parlava parlàvem
      parlarem parlaria parlaren parlat parlada parlades menjar menjant menjava menjarem
      menjat dormir dormint dormia dormirem dormit dorm dormo dorms dormen nacionalitat
      nacionalitats possibilitat possibilitats activitat activitats ràpidament feliçment
      lentament clarament biologia biologies lògica lògics lògiques solució solucions
      revolució revolucions presència presències ciència ciències organització
      organitzacions organitzador organitzadora comunisme comunista comunistes perillós
      perillosa perillosos perilloses moviment moviments interessant interessants
      important importància creatiu creativa creatius creatives aplicació aplicacions
      responsable responsables possible possibles tristesa amistat ciutat ciutats
      col·lecció col·legi paral·lel dóna-li dona'm porta'ls fes-ho digues-me l'home
      aquesta aquests altres també després així més però català catalana catalanes
      riquíssim riquíssima poquíssims històric històrica històriques músic música
      fill filla fills filles llibre llibres escriure escrivint escrit escrita`,
    generated: [
      [
        `parl menj dorm cant beb escriv treball estudi compr vend part guany arrib pag
         segu constru llegi`,
        `- o es a em eu en ar er ir re ant ent int at ada ats ades ut uda uts udes it ida its
         ides ava aves àvem àveu aven ia ies íem íeu ien aré aràs arà arem areu aran aria
         aries aríem aríeu arien és ès essis essin éssim ésseu àssem àsseu assin issin
         eixo eixes eix eixen isc isca isques esca esquen eixi isquen iguem igueu ando
         ador adora adors adores ària àries atge ència ències itzar itza itzo
         ho hi li lo los la les ens -ho -li -la -les -los -me -te -nos -us 'l 'ls 'n 'm 't 's`,
      ],
      [
        `nacion real possib activ creat curi lòg natur form inform organ import dec constr
         abund comun perill mov interess histor`,
        `- al als ari aris atge able ables ible ibles itat itats ivitat ivitats bilitat
         ment ament aments ments ista istes isme ismes ós osa osos oses ic ica ics iques ió
         ions ció cions acions ada ades ia ies logia logies lógica lògica quíssim quíssima
         iu ius iva ives atiu atius ativa atives ència encia ències ancia ancies ant ants
         ent ents ador adora dors dores or ors ora ores ívol ívola ístic istic`,
      ],
    ],
  },
  basque: {
    real: `etxe etxea etxeak etxean etxetik etxera etxeko etxekoa etxeetan gizon gizona
      gizonak gizonari gizonarekin gizonaren emakume emakumea emakumeak emakumeari haur
      haurra haurrak haurrentzat liburu liburua liburuak liburuan liburutik liburuaren
      mendi mendia mendiak mendian mendira mendiko herri herria herriak herrian herritik
      herriko euskara euskaraz euskaldun euskaldunak euskaltzain euskaltzaina ikasle
      ikaslea ikasleak irakasle irakaslea irakasleak idazle idazlea jokalari jokalaria
      jokatu jokatzen jokatuko joka jokoa ikasi ikasten ikasiko ikasketa ikasketak
      idatzi idazten idatziko idazkera edertasun edertasuna osasun osasuna osasuntsu
      garrantzitsu garrantzitsua zoriontsu zoriontasuna ezinezko ezinezkoa beharrezko
      atseden arabera baditu zehar geldi igaro aurka minutuko trako telebista telebistan
      zlea ederra handia txikia txikitxo etxetxo mutiko mutikoa neska neskatila neskatxa
      a e i o u ab ba`,
    generated: [
      [
        `etxe gizon liburu mendi herri ikas idaz jok lan egin etorr ibil jan edan`,
        `- le la tzaile aldatu atu tzailea taile pera gale gura kura kor korra or orra tun
         gaitz kaitz ezin tezin errez karri tzaga tzaka tzake ez eza tzez keta eta etan pen
         pena tze atze kuntza kunde kune kuna kera era kizun dura tura men mena go ago tio
         taldi aldi gune bide pide gai ki kin rekin kari ari tari etari gailu kide ide du ka
         kan an ean tu lari tatu rean tarazi arazi tzat bera dako garri garria tza atseden
         aria bizia zain tzain zale tzale aizun orde burua ohi kintza gintzo tzu tzo talde
         eria keria teria di za ada tara etara tra ta tegi z zko ti tsu zu zto asi gile estu
         larri nahi koi oi goi min dun duru duri os osa oso ar ara tar dar tiar liar gabe kabe
         ga ge kada tasun asun mendu mentu zio zino zione ezia degi egi toki leku gintza alde
         kalde une una pe gibel ondo arte aurre ola ontzi gela denda te zaro taro oro aro ero
         eroz kana tako etako kote tzar handi kondo skila no ño ska xka zka tila to tto txo txu
         anda anga urren gei eme kume sa ko eko ena ne tarik tan ordu oste tzara ra antza behar
         ro giro ak zp ket kail ail kirri ngo ñi sko sta koitz na garren gerren garna tz tuko
         ora buru ren joka tzen ten en trako minutuko zehar tate tade date dade larik lanik
         ik ztik rik zlea etxea etakoa tasuna gabea`,
      ],
    ],
  },
  indonesian: {
    real: `makan makanan dimakan memakan termakan pemakan makanannya makanlah bukunya
      bukuku bukumu membaca dibaca pembaca bacaan membacakan dibacakan menulis ditulis
      penulis tulisan menuliskan menyapu penyapu disapu memukul dipukul pemukul menyanyi
      penyanyi nyanyian bernyanyi bermain permainan mainan pemain dimainkan memainkan
      belajar pelajar pelajaran mempelajari dipelajari bekerja pekerja pekerjaan dikerjakan
      mengerjakan berjalan perjalanan menjalankan dijalankan pengajar mengajar ajaran
      kebersihan kesehatan keadilan kebudayaan ketidakadilan pertanian petani bertani
      menggunakan digunakan penggunaan pengguna terbesar terbaik terlalu tersebut
      apakah siapakah bukankah adalah itulah inilah bagaimanapun apapun siapapun
      membesarkan mendengarkan mendengar pendengar mengambil diambil pengambilan
      menyelesaikan diselesaikan penyelesaian memberikan diberikan pemberian bersepeda
      mobil mobilnya rumah rumahnya rumahku kotanya negara negaranya berbicara pembicaraan
      dibicarakan mencintai dicintai kekasih mengasihi dikasihi rasanya perasaan merasakan
      pelajari pelajarkan belajarlah membelikan dibelikan berserta beserta bekerjalah
      memperbesar diperbesar memperkenalkan diperkenalkan menyanyikan tetapi manusia
      a i u ia aku kamu dia kami kita mereka`,
    generated: [
      [
        `di me meng men mem meny pe peng pen pem peny ter ke ber be per pel bel -`,
        `baca tulis pukul sapu ajar ambil asih ukur kerja jalan besar dengar rasa beli
         pakai pilih isi gambar lihat cari lerja`,
        `- kan an i kah pun mu nya kannya ilah`,
      ],
    ],
  },
  irish: {
    real: `athair n-athair h-athair t-athair mháthair máthair bhean bean mbean gcat cat
      ndoras doras bhfear fear ngeata geata bpáiste páiste tsráid sráid dtír tír
      d'ól d'fhág m'athair b'fhéidir shiúil siúil chuaigh dhún fhéach ghlac mhol phós
      thóg siopadóireacht siopadóir poblacht monarcacht monarcachta eolaíocht eolaíochta
      geolaíocht fealsúnacht ceolchoirm bunaíocht oibrigh oibrímid oibreoidh ólaimid
      rithfidh glanfaidh scríobhfaidh déanann déanaimid déanadh briseadh cuireadh
      múinteoir múinteoirí feirmeoir feirmeoirí iascaire iascairí siopadóirí cainteoir
      grafaíocht geografaíocht bitheolaíocht antraipeolaíocht síceapatach síceapaite
      gineas gineach genitive ginis ceimiceach meitéareolaíocht aistritheoir aistritheoirí
      tuairimí tuairim fhoirm foirmeacha foirmiúil acadúil náisiúnta idirnáisiúnta
      a é í á ó ú an na ag ar le do`,
    generated: [
      [
        `h- n- t- d' d'fh m' b' sh mb gc nd bhf ng bp ts dt bh ch dh fh gh mh ph th -`,
        `ól ár éan obair uisce athair bád cáis`,
      ],
      [
        `cláir obair saothar múin foghlaim ceannaigh sábhál oibr scríobh`,
        `- amh eamh abh eabh aibh ibh aimh imh aíocht íocht aíochta íochta ire irí aire airí
         acht eacht ach each eachtúil eachta achtúil achta arcacht arcachtaí arcachta gineach
         gineas ginis grafaíoch grafaíocht grafaíochta grafaíochtaí paite patach pataigh
         patacha óideach óideacha óidigh imid aimid ímid aímid faidh fidh ain eadh adh áil
         tear tar`,
      ],
    ],
  },
  hindi: {
    real: `लड़का लड़के लड़कों लड़की लड़कियाँ लड़कियां लड़कियों किताब किताबें किताबों खाना खाता खाती
      खाते खाया खायी खाए खाएगा खाएगी खाऊंगा खाऊँगा खाओगे खाकर जाना जाता जाती जाते जाएगा जाएगी
      पढ़ना पढ़ता पढ़ती पढ़ाई पढ़ाना पढ़ेगा पढ़ेंगे पढ़ो पढ़िए लिखना लिखता लिखती लिखे लिखेंगे
      भारत भारतीय भारतीयों हिंदी हिन्दी भाषा भाषाएं भाषाओं सरकार सरकारें सरकारों देश देशों
      कर करना करता करती करके करेंगे किया किए की का के को में से पर और है हैं था थी थे
      अ आ इ ई क कि की आना आता ईना ऊता कंता कःता क्ता कँना ॐना १ना कऽना कॉना`,
    generated: [
      [
        `लड़क किताब खा जा पढ़ लिख बोल सुन देख चल घर`,
        `- ा ि ी ु ू े ो ें ों ां ुआं ुएं ुओं ाएं ाओं ियां ियों ाइयां ाइयों ाँ ियाँ ाइयाँ ताएं ताओं
         नाएं नाओं ता ती ीं तीं ते ाता ाती ातीं ाते ना नी ने ाना ाने ूंगा ूंगी ाऊंगा ाऊंगी ेंगे
         ेंगी ाएंगे ाएंगी ोगे ोगी ाओगे ाओगी ेगा ेगी ाएगा ाएगी ाया ाए ाई ाईं िए ाओ ाइए कर ाकर
         अताएं अताओं अनाएं अनाओं अता अती अतीं अते अना अनी अने अकर`,
      ],
    ],
  },
  nepali: {
    real: `घर घरमा घरको घरका घरकी घरले घरलाई घरबाट घरहरू घरहरूमा किताब किताबहरू किताबको
      मान्छे मान्छेहरू मान्छेको केटा केटाको केटाले केटी केटीहरू गर्नु गर्छ गर्छु गर्छन्
      गर्नुहुन्छ गरेको गरेका गरेकी गर्यो गरे गर्दै गर्दा गर्ने गर्नेछ जानु जान्छ जान्छु जान्छन्
      गएको गएका जाँदै जाने जानेछ खानु खान्छ खायो खाए खाँदै खाने नेपाल नेपालको नेपालमा
      नेपाली भाषा भाषामा सरकार सरकारले सरकारको देश देशमा देशको छ छन् थियो थिए हो होइन
      यौँ छौँ नौँ थेँ त्रै`,
    generated: [
      [
        `घर किताब मान्छे केटा गर जा खा देश सरकार`,
        `- मार्फत द्वारा सँगै संग सँग लाइ लाई पछि ले रत मै मा को का कि की कै एको एका ेको
         थिइस् हुनेछ हुन्छ नेछस् नेछन् इएकी इएका इएको िएकी िएका िएको इछन् िछन् इछस् िछस् एछन्
         ेछन् एछस् ेछस् छिन् छेस् छ्यौ थिन् थियो थियौ थिस् थ्यो थ्यौ दियो देखि देखी लान् माथि नेकै
         नेका नेको नेछौ होस् इन्छ िन्छ नेछु इछौ िछौ इस् िस् ियो इयो एकी ेकी एकै ेकै एछु ेछु एछौ
         ेछौ छन् छस् थिए प्र भ्यो हरु हरू िदा इदा िदो इदो िदै इदै नेछ इछ िछ एछ ेछ छु छे छौ थी थे
         दा दी दै दो नु ने यो यौ छ यौँ छौँ नौँ थेँ यौं त्रै हरूमा हरूको छौँको`,
      ],
    ],
  },
  turkish: {
    real: `kitap kitaplar kitabı kitapları kitabım kitabın kitabımız kitaplarımız kitapta
      kitaptan kitaba kitapla kitapçı kitaplık ev evler evde evden eve evi evim evimiz
      evlerimiz evlerimizde evlerimizdeki evdeki evdekiler ağaç ağacı ağaçlar kalem
      kalemler kalemi kalemim kalemle kalemlerle okul okullar okulda okuldan okula okulu
      okulumuz okuldaki çocuk çocuklar çocuğu çocuğun çocuklara çocuklarımız kedi kediler
      kedim kedimiz kedisi kedileri kediye kediyle kedinin gelmek geliyorum geliyorsun
      geliyor geliyoruz geliyorsunuz geliyorlar geldim geldin geldi geldik geldiniz geldiler
      gelmişim gelmişsin gelmiş gelmişiz gelmişsiniz gelmişler gelecek geleceğim gelirim
      gelirsen gelse gelsem gelseydi gelmeli doktor doktorum doktorsun doktordur
      doktoruymuşsunuz doktorlar doktorlardır doktorken öğretmen öğretmenler öğretmendir
      öğretmenim öğretmensin öğretmeniz güzel güzeldir güzelce güzelleştirmek yapmak
      yapıyorum yaptım yapmış yapacak yapılır yapıldı yapılmış kedicasına aslancasına
      ad soyad adı adım kedim kitabımdaki arkadaşımınki bizimki sizinki evdekini
      anne annem annesi babam babası kardeşim kardeşler kardeşlerimiz şehir şehirler
      şehirde şehre şehrin köy köyler köyde köyden ülke ülkeler ülkede ülkeden ülkemiz
      a e ı i o ö u ü ab ev ad`,
    generated: [
      [
        `ev kitap kalem okul çocuk kedi arkadaş öğretmen göz gül kız baba ağaç`,
        `- ler lar leri ları i ı u ü si sı su sü yi yı yu yü e a ye ya de da te ta den dan ten
         tan nde nda nden ndan le la yle yla ce ca nce nca in ın un ün nin nın nun nün ni nı nu
         nü ki deki daki lerdeki imiz ımız im ım in ın iniz ınız m n miz mız niz nız dir dır
         dur dür tir tır tur tür dim dım dik dık din dın di dı du dü ydi ydı sem sam sen san se
         sa ysa yse miş mış muş müş ymiş ymış ken yken cesine casına sınız siniz sunuz sünüz
         sin sın sun sün yim yım yiz yız iz ız lerimiz larımız lerde larda lerden lardan
         lerimizde larımızda indeki ındaki dekiler dakiler dekini dakini lerinin larının
         imizin ımızın lerle larla ydiler ydılar mişler mışlar dirler dırlar`,
      ],
    ],
  },
  lithuanian: {
    real: `vyras vyro vyrui vyrą vyru vyre vyrai vyrų vyrams vyrus vyrais vyruose kelias
      kelio keliui kelią keliu kelyje keliai kelių keliams kelius keliais keliuose brolis
      brolio broliui brolį broliu brolyje broliai brolių broliams brolius broliais galva
      galvos galvai galvą galva galvoje galvų galvoms galvomis galvose gervė gervės gervei
      gervę gervėje gervių gervėms gervėmis gervėse sūnus sūnaus sūnui sūnų sūnumi sūnuje
      sūnūs sūnums sūnumis akmuo akmens akmeniui akmenį akmeniu akmenyje vanduo vandens
      dirbti dirbu dirbi dirba dirbame dirbate dirbo dirbome dirbsiu dirbsi dirbs dirbsime
      dirbčiau dirbtum dirbk dirbkime dirbąs dirbdamas mokytis mokausi mokaisi mokosi
      mokėjosi lietuvaitė lietuvaite lietuvaitės advokatė advokate advokatės žvilgesiu
      žėrėjime žioravime gražus gražiausias geresnis gerasis geroji gerojo žaliasis
      tvarkingas lenkiškas mažytis mažiukas baltutėlaitis didokas salsvas apvalainas
      tenykštis didesnis naujausias eidavo turintis turėjo bėgdamas ūkininkauja
      aliejus alyvuogė ateitis medžiai medžių žodžiai žodžių vokietis vokiečiai vokiečių
      lietuvių lietuviai kalba kalbos kalbą kalbėti kalbėjo kalbėsiu vyras' a e i o u`,
    generated: [
      [
        `vyr kel brol galv gerv sūn akmen dirb mok kalb tvark maž gr did nauj`,
        `- as ias is ys o io ui iui ą ią į u iu e yje y au i an ai iai ų ių ams am iams iam us
         ius ais iais uose iuose uos uosna ysna asis aisi osi ųsi uisi ąsi usi esi uo a ia os
         ios oj oje ioje osna om oms ioms omis iomis ose iose on ion ė ės ei ę ėj ėje ėms es ėmis
         ėse ėsna ėn aus iaus umi iumi uje iuje iau ūs ums umis un iun ies ens enio eniui enį imi
         eniu enyje ie enie enys ims enims enis imis enimis yse enyse iem iems ame iame uosi
         iuosi iesi asi iasi amės iamės at ate iat iate atės iatės isi im imės it ite ome ot ote
         ėjo ėjosi otės eisi ėsi ėm ėme ėmės ėt ėte ėtės ausi omės siu siuosi si siesi s ysis sim
         sime sit site čiau čiausi tum tumei tumeis tumeisi tųsi tumėm tumėme tumėmės tute tumėt
         tumėte tumėtės k ki kimės uoti iuoti auti iauti oti ioti ėti yti inti inėti enti
         telėti terėti ti ąs iąs įs tųs simės sitės kite ingas iškas ėtas otas uotas yt iukas
         iulis ėlis ylis učiukas uliukas okas iokas svas švas zganas opas ainas ykštis ykščias
         esnis iausias ojo iajam ąjį uoju ieji ųjų iesiems uosius aisiais osios ąsias davo
         antis iantis intis ėjo ęs ėjęs siantis damas auja jamas dž č gd`,
      ],
    ],
  },
  tamil: {
    real: `வீடு வீட்டில் வீட்டுக்கு வீடுகள் வீட்டை வீட்டின் வீட்டிலிருந்து புத்தகம் புத்தகங்கள்
      புத்தகத்தை புத்தகத்தில் புத்தகத்தின் மரம் மரங்கள் மரத்தின் மரத்தை மரத்தில் படித்தான்
      படிக்கிறான் படிப்பான் படித்தாள் படிக்கிறாள் படித்தார்கள் படிக்கின்றனர் செய்தான்
      செய்கிறாள் செய்வேன் செய்தோம் வந்தான் வந்தாள் வருகிறான் போனான் போகிறாள் நாங்கள்
      அவர்கள் பள்ளிக்கூடம் பள்ளிக்கு மாணவர்கள் மாணவர்களுக்கு ஆசிரியர் ஆசிரியருடன் நண்பனுடன்
      கண்ணன் கண்ணனை கண்ணனுக்கு கண்ணனால் தமிழ் தமிழில் தமிழ்நாடு தமிழ்நாட்டில் எங்கே எப்படி
      எந்த அந்த இந்த உந்த அவன் அவள் அது இது வோடு வொன்று வுடன் எவ்வளவு அப்படி இப்படி
      சொல்லு சொன்னான் சொல்கிறான் பார்த்தான் பார்க்கிறேன் கேட்டான் கேட்கிறார் ஓடினான் ஓடுகிறது
      கொண்டிருந்தான் படுகிறது பட்டது விட்டான் பற்றி குறித்து மேலே கீழே முன்னால் பின்னால்
      அம்மா அப்பா தம்பி அக்கா தங்கை குழந்தைகள் குழந்தையை`,
    generated: [
      [
        `வீடு மரம் புத்தகம் படி செய் வா போ பார் கேள் நண்பன் கண்ணன் தமிழ் பள்ளி அரசு நாடு`,
        `- கள் ுங்கள் ற்கள் ட்கள் ை னை ினை ொடு ோடு ில் ிற் ின் ின்று ிருந்து விட ிடம் ால் ுடை
         ாமல் ல் ுள் கண் முன் மேல் மேற் கீழ் பின் து ீ ுடன் ில்லை ின்றி ாகி ாகிய ென்று ுள்ள ுடைய
         ெனும் ல்ல ென படு பட்ட பட்டு பட்டது குரிய பற்றி விடு விட்டு படி தான ெல்லாம் ோ ே ா ும்
         பி வி கொண்டிர் மார் மின் னன் னான் னாள் னார் வன் னள் வள் னர் வர் ன ப க த ய பன் பள் பர்
         ிற்று பம் னம் தும் றும் கும் னென் வை ான் ாள் ார் ேன் ாம் ெம் ேம் ோம் டும் ாய் னிர் ீர்
         ீயர் கு ாநின்ற கின்ற கிற த்த் ட்ட் ட்ப் ன்ற் ற்க் ுக் ங் ந் ந்த ய் க்க் ச் ட் ப் வ்`,
      ],
    ],
  },
};
