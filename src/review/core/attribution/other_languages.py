"""Disclosure language in Spanish, Portuguese, French and German, the languages whose AI headings the
note already reads ("Uso de IA", "KI-Nutzung"): who a sentence says wrote something ("Usé Claude Code
para escribir checkout.mjs", "Claude Code a écrit la fonction", "wurde mit Copilot generiert"), that a
tool was not used ("No usé Cursor", "Ich habe Copilot nicht benutzt"), and a declaration of no AI at
all ("No usé ninguna herramienta de IA"). The same rules as the English forms: a tool merely mentioned
names no writer; an unknown name counts only in an explicit writing form or a disclosure section.
Pure; every pattern reads a bounded window, so a sentence is read in linear time."""

from __future__ import annotations

import re

from review.core.attribution.sentences import Writer, name_writer

# An article before a tool's name ("el", "o", "l'", "den"): not part of the name.
_ARTICLE = r"(?:(?:el|la|los|las|un|una|o|a|os|as|um|uma|le|les|l['’]|une|den|die|das|einen|eine)\s*)?"
# "Usé Claude Code para …", "Usei o Copilot", "J'ai utilisé Cursor pour …", "Ich nutzte Copilot": the
# verb is the candidate's own (first person), an article may follow.
_USE = re.compile(
    r"(?<![\w'’-])(?:usé|utilicé|empleé|he usado|he utilizado|hemos usado|hemos utilizado|usamos|utilizamos|"
    r"recurrí a|me apoyé en|me ayudé de|usei|utilizei|empreguei|recorri a|contei com|"
    r"j['’]ai utilisé|j['’]ai employé|j['’]ai eu recours à|j['’]ai fait appel à|nous avons utilisé|on a utilisé|"
    r"ich nutzte|ich benutzte|ich verwendete|wir nutzten|wir benutzten|wir verwendeten)"
    r"\s+" + _ARTICLE,
    re.I,
)
# German puts the participle last: "Ich habe Claude Code benutzt, um …".
_USE_GERMAN = re.compile(
    r"(?<![\w-])(?:ich|wir)\s+(?:habe|haben|hatte|hatten)\s+(?P<name>[^,;:!?]{1,60}?)\s+"
    r"(?:benutzt|verwendet|genutzt|eingesetzt)(?![\w-])",
    re.I,
)
# "Claude Code escribió checkout.mjs", "Copilot escreveu os testes", "Cursor a écrit la fonction",
# "Codex schrieb den ersten Entwurf": the subject wrote.
_WROTE = re.compile(
    r"(?<![\w'’-])(?P<verb>escribió|generó|implementó|creó|redactó|produjo|escreveu|gerou|implementou|criou|"
    r"redigiu|produziu|a écrit|a généré|a implémenté|a créé|a rédigé|a produit|ont écrit|ont généré|"
    r"schrieb|generierte|erstellte|implementierte|erzeugte)(?![\w-])",
    re.I,
)
# "Claude Code hat checkout.mjs geschrieben".
_WROTE_GERMAN = re.compile(
    r"(?<![\w-])(?:hat|haben)\s+(?P<what>[^,;:!?]{0,80}?)\s*"
    r"(?:geschrieben|generiert|erstellt|implementiert|erzeugt)(?![\w-])",
    re.I,
)
# "fue generado por Claude Code", "foi escrito com o Copilot", "a été généré par Cursor".
_PASSIVE = re.compile(
    r"(?<![\w'’-])(?P<aux>fue|fueron|ha sido|han sido|foi|foram|a été|ont été|été|est|sont)?\s*"
    r"(?:escrit|generad|cread|implementad|redactad|producid|gerad|criad|redigid|produzid|"
    r"écrit|généré|créé|implémenté|rédigé|produit)(?:[oa]s?|es?|e?s)?\s+"
    r"(?P<how>por|con|com|par|avec)\s+" + _ARTICLE,
    re.I,
)
# "wurde mit Copilot generiert", "wurde von Claude Code geschrieben".
_PASSIVE_GERMAN = re.compile(
    r"(?<![\w-])(?:wurde|wurden|ist|sind)\s+(?P<how>von|mit)\s+(?P<name>[^,;:!?]{1,60}?)\s+"
    r"(?:geschrieben|generiert|erstellt|erzeugt|implementiert)(?![\w-])",
    re.I,
)
# "con la ayuda de Copilot", "com a ajuda do ChatGPT", "avec l'aide de Claude", "mit Hilfe von Cursor".
_HELP = re.compile(
    r"(?<![\w'’-])(?:con (?:la )?ayuda de(?:l)?|com (?:a )?ajuda d[oae]s?|avec l['’]aide d[e']|"
    r"grâce à|mit (?:der )?hilfe von|dank)\s+" + _ARTICLE,
    re.I,
)
# The candidate speaking: what makes a passive or a "with the help of" a statement about this work.
_FIRST_PERSON = re.compile(
    r"(?<![\w'’-])(?:yo|mi|mis|me|nosotros|eu|meu|minha|meus|minhas|nós|je|j['’]|mon|ma|mes|"
    r"nous|ich|wir|mein|meine|meinen|unser|unsere|escribí|hice|programé|implementé|escrevi|fiz|"
    r"programei|implementei)(?![\w-])",
    re.I,
)
# Where a name ends: before what the sentence says next.
_NAME_END = re.compile(
    r"[,.;:!?]\s|[,.;:!?]$|\s(?:para|por|en|em|y|e|que|con|com|pour|et|qui|dans|afin|avec|sur|um|"
    r"und|für|zu|in|bei|als|de|du|des|del|da|do|no|na)\s",
    re.I,
)
# A tool the sentence says was not used, or did not write: "No usé Cursor", "não usei o Copilot",
# "Je n'ai pas utilisé Copilot", "Ich habe Copilot nicht benutzt", "Claude Code no escribió …".
NEGATED_USE = re.compile(
    r"(?<![\w'’-])(?:no|não|nunca|jamás|jamais)\s+(?:\w{1,40}\s{1,5}){0,2}?(?:usé|utilicé|he usado|he utilizado|usamos|"
    r"utilizamos|usei|utilizei|escribió|generó|escreveu|gerou|se usó|se utilizó|foi usado|foi utilizado|fue usado|"
    r"fue utilizado)(?![\w-])|"
    r"n['’](?:ai|avons|a|ont)\s+(?:pas|jamais|rien|point)\s+"
    r"(?:\w{1,40}\s{1,5}){0,1}?(?:utilisé|employé|eu recours|écrit|généré)|"
    r"(?<![\w-])(?:nicht|nie|niemals|keine?n?)\s+(?:\w{1,40}\s{1,5}){0,1}?(?:benutzt|verwendet|genutzt|eingesetzt|geschrieben|"
    r"generiert)(?![\w-])|(?<![\w-])(?:schrieb|nutzte|benutzte|verwendete)\s+(?:\w{1,40}\s{1,5}){0,3}?(?:nicht|nichts|nie)(?![\w-])|"
    r"(?<![\w'’-])(?:sin|sem|sans|ohne)\s+(?:usar|utilizar|utiliser|l['’]aide|ayuda|ajuda|hilfe)(?![\w-])",
    re.I,
)
# No AI at all: "No usé ninguna herramienta de IA", "Não usei nenhuma IA", "Je n'ai utilisé aucune IA",
# "Ich habe keine KI verwendet", "sin IA", "ohne KI".
NONE = re.compile(
    r"(?<![\w'’-])(?:ninguna|ningún|nenhuma|nenhum|aucune?|keine?n?)\s+(?:\w{1,40}\s{1,5}){0,3}?(?:ia|i\.a\.|ki|llms?|"
    r"inteligencia artificial|inteligência artificial|intelligence artificielle|asistentes?|assistentes?|assistants?)"
    r"(?![\w-])|(?<![\w'’-])(?:sin|sem|sans|ohne)\s+(?:(?:la|a|l['’]|die)\s*)?(?:ia|i\.a\.|ki)(?![\w-])",
    re.I,
)


def _name_after(text: str) -> str:
    end = _NAME_END.search(text)
    return text[: end.start()] if end else text


# Clauses: a tool denied in one ("No usé Cursor, pero Claude Code escribió …") leaves the next its own.
CLAUSES = re.compile(
    r"[,;:—–]\s+|\s(?:but|yet|pero|mas|mais|aber|sondern|aunque|embora|obwohl|sin embargo|"
    r"cependant)\s",
    re.I,
)
# Verbs and participles of writing: with a file named, the sentence says who wrote that file.
WRITING = re.compile(
    r"(?<![\w-])(?:escribió|escrito|escrita|generó|generado|generada|creó|creado|creada|implementó|"
    r"implementado|escreveu|gerou|gerado|gerada|criou|criado|criada|implementou|a écrit|écrit|écrite|"
    r"généré|générée|créé|créée|implémenté|schrieb|geschrieben|generiert|erstellt|erzeugt|"
    r"implementiert)(?![\w-])",
    re.I,
)


def writer_abroad(sentence: str, in_section: bool = False) -> Writer | None:
    """Who the sentence, in one of the four languages, says wrote something; None when it only
    mentions a tool or says one was not used."""
    speaking = in_section or _FIRST_PERSON.search(sentence) is not None
    for clause in CLAUSES.split(sentence):
        if NEGATED_USE.search(clause):
            continue
        found = _used(clause, in_section, speaking) or _wrote(clause, in_section, speaking)
        if found:
            return found
    return None


def _tool(found: Writer | None) -> Writer | None:
    return found if found and found.tool else None


def _used(clause: str, in_section: bool, speaking: bool) -> Writer | None:
    """The candidate's use of a tool: "Usé X para …", "con la ayuda de X", "Ich habe X benutzt"."""
    for form in (_USE, _HELP):
        used = form.search(clause)
        # "Usé …" is the candidate speaking; "con la ayuda de …" only where they are.
        if used and (form is _USE or speaking):
            found = _tool(name_writer(_name_after(clause[used.end() : used.end() + 200]), unknown_ok=in_section))
            if found:
                return found
    german = _USE_GERMAN.search(clause)
    return _tool(name_writer(german["name"], unknown_ok=in_section)) if german else None


def _wrote(clause: str, in_section: bool, speaking: bool) -> Writer | None:
    """A tool that wrote: the subject of a verb of writing, or the agent of a passive."""
    wrote = _WROTE.search(clause) or _WROTE_GERMAN.search(clause)
    if wrote:
        found = _tool(name_writer(clause[max(0, wrote.start() - 80) : wrote.start()], unknown_ok=True))
        if found:
            return found
    passive = _PASSIVE.search(clause)
    # "fue generado por X", or the candidate speaking: not a tool's description ("un editor creado por X").
    if passive and (passive["aux"] or speaking):
        found = _tool(
            name_writer(
                _name_after(clause[passive.end() : passive.end() + 200]),
                unknown_ok=in_section or passive["how"].lower() in ("por", "par"),
            )
        )
        if found:
            return found
    german = _PASSIVE_GERMAN.search(clause)
    if german:
        return _tool(name_writer(german["name"], unknown_ok=in_section or german["how"].lower() == "von"))
    return None
