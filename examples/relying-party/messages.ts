import type { SiteLanguage } from './settings.js';

/** Everything the demo shop says, in the six languages a site may be written in. `{name}` is a placeholder. */
export interface Messages {
  title: string;
  gateHeading: string;
  gateText: string;
  /** shown by the requirement script; {country} and {age} are filled in */
  gateRequired: string;
  gateNotRequired: string;
  /** gateRequired when the provider could not tell where the visitor is (country ZZ); {age} is filled in */
  gateRequiredUnknown: string;
  /** the country field when the provider could not tell where the visitor is */
  countryUnknown: string;
  /** the button label: it names the service (docs/integration.md, button guidelines) */
  button: string;
  buttonHint: string;
  verifiedHeading: string;
  notVerifiedHeading: string;
  welcome: string;
  fieldVerified: string;
  fieldUid: string;
  fieldCountry: string;
  fieldSubdivision: string;
  fieldLevel: string;
  fieldThreshold: string;
  fieldReused: string;
  fieldExpires: string;
  yes: string;
  no: string;
  none: string;
  declined: string;
  stateMismatch: string;
  providerFailed: string;
  back: string;
  /** the link to the shop's page that integrates with the checker script alone */
  scriptPage: string;
}

export const MESSAGES: Record<SiteLanguage, Messages> = {
  en: {
    title: 'Demo shop',
    gateHeading: 'This shop is for adults only',
    gateText: 'Before you enter, please verify your age. We only learn the result, never your identity documents.',
    gateRequired: 'Age verification is required where you are ({country}): you must be {age} or older.',
    gateRequiredUnknown:
      'We could not tell where you are, so age verification is required: you must be {age} or older.',
    countryUnknown: 'Unknown: the age provider could not tell where you are',
    gateNotRequired: 'Age verification is not required where you are ({country}). You may still verify your age.',
    button: 'Verify my age with Age Provider',
    buttonHint: 'Opens Age Provider in a new window.',
    verifiedHeading: 'Your age is verified',
    notVerifiedHeading: 'Your age is not verified',
    welcome: 'Welcome to the shop: the whole catalogue is open to you.',
    fieldVerified: 'Verified',
    fieldUid: 'Verification id',
    fieldCountry: 'Country',
    fieldSubdivision: 'Region',
    fieldLevel: 'Assurance level',
    fieldThreshold: 'Age threshold',
    fieldReused: 'Reused from an earlier verification',
    fieldExpires: 'Valid until',
    yes: 'yes',
    no: 'no',
    none: 'none',
    declined: 'You declined the age verification, so we cannot let you in. You can try again at any time.',
    stateMismatch:
      'We could not confirm this verification: the answer does not belong to a request from this browser. Please try again.',
    providerFailed: 'The age verification service could not be reached or refused the answer. Please try again later.',
    back: 'Back to the shop',
    scriptPage: 'The same shop with the one-line checker script',
  },
  de: {
    title: 'Demo-Shop',
    gateHeading: 'Dieser Shop ist nur für Erwachsene',
    gateText:
      'Bitte bestätigen Sie vor dem Betreten Ihr Alter. Wir erfahren nur das Ergebnis, niemals Ihre Ausweisdokumente.',
    gateRequired:
      'An Ihrem Standort ({country}) ist eine Altersprüfung vorgeschrieben: Sie müssen mindestens {age} Jahre alt sein.',
    gateRequiredUnknown:
      'Wir konnten Ihren Standort nicht feststellen, daher ist eine Altersprüfung vorgeschrieben: Sie müssen mindestens {age} Jahre alt sein.',
    countryUnknown: 'Unbekannt: Der Altersprüfdienst konnte Ihren Standort nicht feststellen',
    gateNotRequired:
      'An Ihrem Standort ({country}) ist keine Altersprüfung vorgeschrieben. Sie können Ihr Alter trotzdem bestätigen.',
    button: 'Mein Alter mit Age Provider bestätigen',
    buttonHint: 'Öffnet Age Provider in einem neuen Fenster.',
    verifiedHeading: 'Ihr Alter ist bestätigt',
    notVerifiedHeading: 'Ihr Alter ist nicht bestätigt',
    welcome: 'Willkommen im Shop: Der gesamte Katalog steht Ihnen offen.',
    fieldVerified: 'Bestätigt',
    fieldUid: 'Prüfungskennung',
    fieldCountry: 'Land',
    fieldSubdivision: 'Region',
    fieldLevel: 'Vertrauensniveau',
    fieldThreshold: 'Altersgrenze',
    fieldReused: 'Aus einer früheren Prüfung übernommen',
    fieldExpires: 'Gültig bis',
    yes: 'ja',
    no: 'nein',
    none: 'keine',
    declined:
      'Sie haben die Altersprüfung abgelehnt, daher können wir Sie nicht einlassen. Sie können es jederzeit erneut versuchen.',
    stateMismatch:
      'Wir konnten diese Prüfung nicht bestätigen: Die Antwort gehört zu keiner Anfrage aus diesem Browser. Bitte versuchen Sie es erneut.',
    providerFailed:
      'Der Dienst zur Altersprüfung war nicht erreichbar oder hat die Antwort abgelehnt. Bitte versuchen Sie es später erneut.',
    back: 'Zurück zum Shop',
    scriptPage: 'Derselbe Shop mit dem einzeiligen Prüfskript',
  },
  es: {
    title: 'Tienda de demostración',
    gateHeading: 'Esta tienda es solo para adultos',
    gateText: 'Antes de entrar, verifica tu edad. Solo conocemos el resultado, nunca tus documentos de identidad.',
    gateRequired: 'En tu ubicación ({country}) la verificación de edad es obligatoria: debes tener {age} años o más.',
    gateRequiredUnknown:
      'No pudimos saber dónde estás, así que la verificación de edad es obligatoria: debes tener {age} años o más.',
    countryUnknown: 'Desconocido: el servicio de verificación no pudo saber dónde estás',
    gateNotRequired:
      'En tu ubicación ({country}) la verificación de edad no es obligatoria. Aun así puedes verificar tu edad.',
    button: 'Verificar mi edad con Age Provider',
    buttonHint: 'Abre Age Provider en una ventana nueva.',
    verifiedHeading: 'Tu edad está verificada',
    notVerifiedHeading: 'Tu edad no está verificada',
    welcome: 'Bienvenido a la tienda: todo el catálogo está a tu disposición.',
    fieldVerified: 'Verificado',
    fieldUid: 'Identificador de la verificación',
    fieldCountry: 'País',
    fieldSubdivision: 'Región',
    fieldLevel: 'Nivel de garantía',
    fieldThreshold: 'Edad mínima',
    fieldReused: 'Reutilizada de una verificación anterior',
    fieldExpires: 'Válida hasta',
    yes: 'sí',
    no: 'no',
    none: 'ninguna',
    declined:
      'Has rechazado la verificación de edad, así que no podemos dejarte entrar. Puedes volver a intentarlo cuando quieras.',
    stateMismatch:
      'No hemos podido confirmar esta verificación: la respuesta no corresponde a ninguna solicitud de este navegador. Inténtalo de nuevo.',
    providerFailed:
      'No se ha podido contactar con el servicio de verificación de edad o ha rechazado la respuesta. Inténtalo más tarde.',
    back: 'Volver a la tienda',
    scriptPage: 'La misma tienda con el script de verificación de una línea',
  },
  fr: {
    title: 'Boutique de démonstration',
    gateHeading: 'Cette boutique est réservée aux adultes',
    gateText:
      'Avant d’entrer, veuillez vérifier votre âge. Nous ne connaissons que le résultat, jamais vos pièces d’identité.',
    gateRequired:
      'La vérification de l’âge est obligatoire là où vous êtes ({country}) : vous devez avoir {age} ans ou plus.',
    gateRequiredUnknown:
      'Nous n’avons pas pu déterminer où vous êtes, la vérification de l’âge est donc obligatoire : vous devez avoir {age} ans ou plus.',
    countryUnknown: 'Inconnu : le service de vérification n’a pas pu déterminer où vous êtes',
    gateNotRequired:
      'La vérification de l’âge n’est pas obligatoire là où vous êtes ({country}). Vous pouvez tout de même vérifier votre âge.',
    button: 'Vérifier mon âge avec Age Provider',
    buttonHint: 'Ouvre Age Provider dans une nouvelle fenêtre.',
    verifiedHeading: 'Votre âge est vérifié',
    notVerifiedHeading: 'Votre âge n’est pas vérifié',
    welcome: 'Bienvenue dans la boutique : tout le catalogue vous est ouvert.',
    fieldVerified: 'Vérifié',
    fieldUid: 'Identifiant de la vérification',
    fieldCountry: 'Pays',
    fieldSubdivision: 'Région',
    fieldLevel: 'Niveau de garantie',
    fieldThreshold: 'Âge minimum',
    fieldReused: 'Reprise d’une vérification antérieure',
    fieldExpires: 'Valable jusqu’au',
    yes: 'oui',
    no: 'non',
    none: 'aucune',
    declined:
      'Vous avez refusé la vérification de l’âge, nous ne pouvons donc pas vous laisser entrer. Vous pouvez réessayer à tout moment.',
    stateMismatch:
      'Nous n’avons pas pu confirmer cette vérification : la réponse ne correspond à aucune demande de ce navigateur. Veuillez réessayer.',
    providerFailed:
      'Le service de vérification de l’âge est injoignable ou a refusé la réponse. Veuillez réessayer plus tard.',
    back: 'Retour à la boutique',
    scriptPage: 'La même boutique avec le script de vérification en une ligne',
  },
  it: {
    title: 'Negozio dimostrativo',
    gateHeading: 'Questo negozio è riservato agli adulti',
    gateText: 'Prima di entrare, verifica la tua età. Conosciamo solo il risultato, mai i tuoi documenti d’identità.',
    gateRequired:
      'Nel luogo in cui ti trovi ({country}) la verifica dell’età è obbligatoria: devi avere almeno {age} anni.',
    gateRequiredUnknown:
      'Non siamo riusciti a capire dove ti trovi, quindi la verifica dell’età è obbligatoria: devi avere almeno {age} anni.',
    countryUnknown: 'Sconosciuto: il servizio di verifica non è riuscito a capire dove ti trovi',
    gateNotRequired:
      'Nel luogo in cui ti trovi ({country}) la verifica dell’età non è obbligatoria. Puoi comunque verificare la tua età.',
    button: 'Verifica la mia età con Age Provider',
    buttonHint: 'Apre Age Provider in una nuova finestra.',
    verifiedHeading: 'La tua età è verificata',
    notVerifiedHeading: 'La tua età non è verificata',
    welcome: 'Benvenuto nel negozio: l’intero catalogo è a tua disposizione.',
    fieldVerified: 'Verificata',
    fieldUid: 'Identificativo della verifica',
    fieldCountry: 'Paese',
    fieldSubdivision: 'Regione',
    fieldLevel: 'Livello di garanzia',
    fieldThreshold: 'Età minima',
    fieldReused: 'Ripresa da una verifica precedente',
    fieldExpires: 'Valida fino al',
    yes: 'sì',
    no: 'no',
    none: 'nessuna',
    declined:
      'Hai rifiutato la verifica dell’età, quindi non possiamo farti entrare. Puoi riprovare in qualsiasi momento.',
    stateMismatch:
      'Non siamo riusciti a confermare questa verifica: la risposta non corrisponde a nessuna richiesta di questo browser. Riprova.',
    providerFailed:
      'Il servizio di verifica dell’età non è raggiungibile o ha rifiutato la risposta. Riprova più tardi.',
    back: 'Torna al negozio',
    scriptPage: 'Lo stesso negozio con lo script di verifica di una riga',
  },
  pt: {
    title: 'Loja de demonstração',
    gateHeading: 'Esta loja é apenas para adultos',
    gateText:
      'Antes de entrar, verifique a sua idade. Só ficamos a saber o resultado, nunca os seus documentos de identificação.',
    gateRequired:
      'No local onde se encontra ({country}) a verificação da idade é obrigatória: tem de ter {age} anos ou mais.',
    gateRequiredUnknown:
      'Não conseguimos saber onde se encontra, por isso a verificação da idade é obrigatória: tem de ter {age} anos ou mais.',
    countryUnknown: 'Desconhecido: o serviço de verificação não conseguiu saber onde se encontra',
    gateNotRequired:
      'No local onde se encontra ({country}) a verificação da idade não é obrigatória. Pode verificar a sua idade na mesma.',
    button: 'Verificar a minha idade com Age Provider',
    buttonHint: 'Abre o Age Provider numa nova janela.',
    verifiedHeading: 'A sua idade está verificada',
    notVerifiedHeading: 'A sua idade não está verificada',
    welcome: 'Bem-vindo à loja: todo o catálogo está ao seu dispor.',
    fieldVerified: 'Verificada',
    fieldUid: 'Identificador da verificação',
    fieldCountry: 'País',
    fieldSubdivision: 'Região',
    fieldLevel: 'Nível de garantia',
    fieldThreshold: 'Idade mínima',
    fieldReused: 'Reutilizada de uma verificação anterior',
    fieldExpires: 'Válida até',
    yes: 'sim',
    no: 'não',
    none: 'nenhuma',
    declined:
      'Recusou a verificação da idade, por isso não o podemos deixar entrar. Pode tentar novamente a qualquer momento.',
    stateMismatch:
      'Não foi possível confirmar esta verificação: a resposta não pertence a nenhum pedido deste navegador. Tente novamente.',
    providerFailed:
      'Não foi possível contactar o serviço de verificação da idade ou este recusou a resposta. Tente novamente mais tarde.',
    back: 'Voltar à loja',
    scriptPage: 'A mesma loja com o script de verificação de uma linha',
  },
};
