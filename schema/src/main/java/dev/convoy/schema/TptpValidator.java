package dev.convoy.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Checks a Convoy TPTP trace ({@code .trcxml}) against {@code schema/convoy-trace.dtd}.
 *
 * <ol>
 * <li>The file carries no DOCTYPE (see the DTD); one is inserted and the file is parsed
 *     with a validating parser against the DTD shipped in this jar. Every warning and
 *     error is a problem.</li>
 * <li>What the DTD cannot say: every {@code threadIdRef}, {@code objIdRef},
 *     {@code classIdRef} and frame method id refers to a {@code threadStart},
 *     {@code objAlloc}, {@code classDef} or {@code methodDef} written before it (except
 *     {@code objIdRef="-1"} on {@code monWait}/{@code monWaited}: Thread.sleep); the
 *     {@code threadId} of {@code callStart}, {@code callInterrupt}, {@code callNotify}
 *     and {@code threadInterrupted} refers to a {@code threadStart} written before it;
 *     {@code threadId}s are unique; every {@code time} is epoch seconds with 9 fraction
 *     digits; the children of an element are frame annotations ({@code name="frame"},
 *     {@code value="METHODID:LOCATION"}), except that a {@code monContendedEnter} may start
 *     with one owner annotation ({@code name="owner"}, {@code value} exact, none or
 *     inferred).</li>
 * </ol>
 */
public final class TptpValidator {

    /** Name of the DTD, as a classpath resource next to this class and in the DOCTYPE. */
    public static final String DTD_NAME = "convoy-trace.dtd";
    /** Epoch seconds with exactly 9 fraction digits. */
    public static final Pattern TIME = Pattern.compile("\\d+\\.\\d{9}");

    /** A frame annotation's value: method id, colon, bytecode index or -1. */
    private static final Pattern FRAME = Pattern.compile("\\d+:-?\\d+");

    /** The values of a {@code monContendedEnter}'s owner annotation. */
    private static final Set<String> OWNER_KINDS = Set.of("exact", "none", "inferred");

    /** monWait/monWaited objIdRef of Thread.sleep (no object). */
    public static final String SLEEP_OBJ = "-1";

    /** Elements whose threadId names the calling thread (a reference to a threadStart). */
    private static final Set<String> CALLS = Set.of("callStart", "callInterrupt", "callNotify", "threadInterrupted");

    private static final String DOCTYPE = "<!DOCTYPE TRACE SYSTEM \"" + DTD_NAME + "\">";

    private TptpValidator() {
    }

    /** The DTD shipped in this jar. */
    public static URL dtd() {
        URL url = TptpValidator.class.getResource(DTD_NAME);
        if (url == null) {
            throw new IllegalStateException(DTD_NAME + " missing from the classpath next to " + TptpValidator.class);
        }
        return url;
    }

    /**
     * Validates a file and returns its DOM.
     *
     * @throws FormatViolation listing every problem found
     * @throws IOException when the file cannot be read
     */
    public static Document validate(Path file) throws IOException {
        return validate(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /**
     * Validates a document given as text and returns its DOM.
     *
     * @param source what to name in the message (e.g. the file)
     * @throws FormatViolation listing every problem found
     */
    public static Document validate(String xml, String source) {
        List<String> problems = new ArrayList<>();
        if (xml.contains("<!DOCTYPE")) {
            problems.add("the file carries a DOCTYPE; Convoy traces have none (importers would try to load it)");
        }
        String withDoctype;
        if (xml.startsWith("<?xml")) {
            int afterDecl = xml.indexOf("?>") + 2;
            withDoctype = xml.substring(0, afterDecl) + DOCTYPE + xml.substring(afterDecl);
        } else {
            problems.add("no XML declaration at the start of the file");
            withDoctype = DOCTYPE + xml;
        }
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setValidating(true);
            f.setNamespaceAware(false);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setEntityResolver((publicId, systemId) -> {
                if (systemId == null || !systemId.endsWith(DTD_NAME)) {
                    problems.add("refers to an external entity other than the DTD: " + systemId);
                    return new InputSource(new StringReader(""));
                }
                return new InputSource(openDtd());
            });
            b.setErrorHandler(new ErrorHandler() {
                @Override
                public void warning(SAXParseException e) {
                    problems.add("warning line " + line(e) + ": " + e.getMessage());
                }

                @Override
                public void error(SAXParseException e) {
                    problems.add("error line " + line(e) + ": " + e.getMessage());
                }

                @Override
                public void fatalError(SAXParseException e) throws SAXParseException {
                    throw e;
                }
            });
            doc = b.parse(new InputSource(new StringReader(withDoctype)));
        } catch (SAXParseException e) {
            problems.add("not well-formed, line " + line(e) + ": " + e.getMessage());
            throw new FormatViolation(source, problems, e);
        } catch (SAXException | IOException | ParserConfigurationException e) {
            problems.add("cannot parse: " + e);
            throw new FormatViolation(source, problems, e);
        }
        problems.addAll(checkDefinedBeforeReferenced(doc));
        FormatViolation.throwIfAny(source, problems);
        return doc;
    }

    /** The line in the original file (the inserted DOCTYPE adds no line). */
    private static int line(SAXParseException e) {
        return e.getLineNumber();
    }

    private static InputStream openDtd() throws IOException {
        return dtd().openStream();
    }

    /**
     * The checks the DTD cannot express (see the class comment), in document order.
     *
     * @return the problems found; empty when there are none
     */
    public static List<String> checkDefinedBeforeReferenced(Document doc) {
        List<String> problems = new ArrayList<>();
        Map<String, String> refs = new LinkedHashMap<>();
        refs.put("threadIdRef", "threadStart");
        refs.put("objIdRef", "objAlloc");
        refs.put("classIdRef", "classDef");
        Map<String, Set<String>> defined = Map.of("threadStart", new HashSet<>(), "objAlloc", new HashSet<>(),
                "classDef", new HashSet<>(), "methodDef", new HashSet<>());
        int index = 0;
        for (Element e : elements(doc.getDocumentElement())) {
            index++;
            String where = "element " + index + " <" + e.getTagName() + ">";
            boolean sleep = (e.getTagName().equals("monWait") || e.getTagName().equals("monWaited"))
                    && e.getAttribute("objIdRef").equals(SLEEP_OBJ);
            for (Map.Entry<String, String> ref : refs.entrySet()) {
                if (sleep && ref.getKey().equals("objIdRef")) {
                    continue;
                }
                if (e.hasAttribute(ref.getKey()) && !defined.get(ref.getValue()).contains(e.getAttribute(ref.getKey()))) {
                    problems.add(where + " " + ref.getKey() + "=" + e.getAttribute(ref.getKey())
                            + " refers to no " + ref.getValue() + " written before it");
                }
            }
            if (CALLS.contains(e.getTagName()) && !defined.get("threadStart").contains(e.getAttribute("threadId"))) {
                problems.add(where + " threadId=" + e.getAttribute("threadId") + " refers to no threadStart written before it");
            }
            boolean firstChild = true;
            for (Element a : elements(e)) {
                String value = a.getAttribute("value");
                boolean owner = firstChild && e.getTagName().equals("monContendedEnter")
                        && a.getTagName().equals("annotation") && a.getAttribute("name").equals("owner");
                firstChild = false;
                if (owner) {
                    if (!OWNER_KINDS.contains(value)) {
                        problems.add(where + " owner annotation value '" + value + "' is not exact, none or inferred");
                    }
                    continue;
                }
                String methodId = value.split(":", -1)[0];
                if (!defined.get("methodDef").contains(methodId)) {
                    problems.add(where + " frame " + value + ": method " + methodId + " has no methodDef written before it");
                }
                if (!a.getTagName().equals("annotation") || !a.getAttribute("name").equals("frame")
                        || !FRAME.matcher(value).matches()) {
                    problems.add(where + " child <" + a.getTagName() + " name=\"" + a.getAttribute("name")
                            + "\" value=\"" + value + "\"> is not a frame METHODID:LOCATION");
                }
            }
            if (e.hasAttribute("time") && !TIME.matcher(e.getAttribute("time")).matches()) {
                problems.add(where + " time '" + e.getAttribute("time") + "' is not seconds with 9 fraction digits");
            }
            switch (e.getTagName()) {
                case "threadStart" -> {
                    if (!defined.get("threadStart").add(e.getAttribute("threadId"))) {
                        problems.add(where + " threadId=" + e.getAttribute("threadId") + " is not unique");
                    }
                }
                case "objAlloc" -> defined.get("objAlloc").add(e.getAttribute("objId"));
                case "classDef" -> defined.get("classDef").add(e.getAttribute("classId"));
                case "methodDef" -> defined.get("methodDef").add(e.getAttribute("methodId"));
                default -> {
                }
            }
        }
        return problems;
    }

    /** The child elements of {@code parent}, in document order. */
    public static List<Element> elements(Element parent) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                out.add(e);
            }
        }
        return out;
    }
}
