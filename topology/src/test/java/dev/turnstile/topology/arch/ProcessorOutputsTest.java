package dev.turnstile.topology.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/**
 * Every processor of the topology forwards through its typed outputs ({@code Output<V>}, declared
 * in {@code Outputs}), never through an untyped context: it declares {@code Processor<K, V, Void,
 * Void>}, so a {@code context.forward} around its outputs does not compile, and each child is wired
 * from the same {@code Output<V>} its parent sends on.
 */
class ProcessorOutputsTest {

  static final ArchRule FORWARD_ONLY_THROUGH_OUTPUTS =
      classes()
          .that()
          .implement(Processor.class)
          .should(declareVoidOutputs())
          .because("a processor's children are typed by the Output it forwards through");

  @Test
  void everyProcessorOfTheTopologyForwardsOnlyThroughTypedOutputs() {
    FORWARD_ONLY_THROUGH_OUTPUTS.check(LayeringTest.CLASSES);
  }

  /** The rule can fail: a processor that forwards {@code Object} through its context breaks it. */
  @Test
  void aProcessorWithAnUntypedOutputBreaksTheRule() {
    JavaClasses untyped = new ClassFileImporter().importClasses(UntypedProcessor.class);
    assertThatThrownBy(() -> FORWARD_ONLY_THROUGH_OUTPUTS.check(untyped))
        .hasMessageContaining("UntypedProcessor forwards java.lang.String, java.lang.Object");
  }

  private static ArchCondition<JavaClass> declareVoidOutputs() {
    return new ArchCondition<>("declare Processor<KIn, VIn, Void, Void>") {
      @Override
      public void check(JavaClass processor, ConditionEvents events) {
        for (JavaType type : processor.getInterfaces()) {
          if (type instanceof JavaParameterizedType generic
              && generic.toErasure().isEquivalentTo(Processor.class)) {
            List<JavaType> arguments = generic.getActualTypeArguments();
            boolean typed =
                arguments.get(2).toErasure().isEquivalentTo(Void.class)
                    && arguments.get(3).toErasure().isEquivalentTo(Void.class);
            events.add(
                new SimpleConditionEvent(
                    processor,
                    typed,
                    processor.getName()
                        + " forwards "
                        + arguments.get(2).getName()
                        + ", "
                        + arguments.get(3).getName()));
          }
        }
      }
    };
  }

  private static final class UntypedProcessor implements Processor<String, byte[], String, Object> {
    private ProcessorContext<String, Object> context;

    @Override
    public void init(ProcessorContext<String, Object> context) {
      this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
      context.forward(record);
    }
  }
}
